#pragma once
/// @file
/// @brief The resource and job model of seed 002 (MetaLoRaS), sections 2.1-2.3: nodes with an
/// effective power, one inter-cluster link per cluster (clusters meet at a central switch) with a
/// maximum and a consumed bandwidth, and BSP jobs of equal tasks with a per-node bandwidth demand
/// and a dedicated processing and communication time. Equation numbers are the paper's.

#include <limits>
#include <string>
#include <vector>

namespace mcb::matching {

inline constexpr double kUnlimited = std::numeric_limits<double>::infinity();

/// @brief One workstation and its intra-cluster link L_i^k.
struct Node {
  double power = 1.0;            //!< relative power P_i^k, 0 < P <= 1 (1: the fastest node)
  double availability = 1.0;     //!< A_i^k, 0 <= A <= 1 (0: CPU fully occupied)
  double link_max = kUnlimited;  //!< maximum bandwidth of the node's intra-cluster link
  double link_consumed = 0.0;    //!< bandwidth of that link already used by others
};

/// @brief A cluster C_i and its inter-cluster link l_i to the central switch.
struct Cluster {
  std::string name;
  std::vector<Node> nodes;
  double link_max = kUnlimited;  //!< BW_i^max
  double link_consumed = 0.0;    //!< BW_i^consumed: used by other local or parallel applications
};

/// @brief The multicluster M = {C_1..C_alpha} at the time of a match (the Multicluster State).
struct Platform {
  std::vector<Cluster> clusters;
  int node_count() const;
};

/// @brief A job matching request: t^j tasks, PNBW^j, and the dedicated times T^p, T^c (eq. 1).
struct Job {
  int tasks = 1;
  double pnbw = 0.0;           //!< per-node bandwidth, in the unit of the links' bandwidths
  double processing = 1.0;     //!< T^p: processing time in a dedicated environment
  double communication = 0.0;  //!< T^c: communication time in a dedicated environment
};

/// Eq. 2: Gamma_i^k = P_i^k x A_i^k.
double effective_power(const Node& node);

/// Processing slowdown of one node, SP_i^k = (Gamma_i^k)^-1 (section 2.2).
double node_processing_slowdown(const Node& node);

/// Eq. 4: BW_i^j = (n_i^j x PNBW^j) x (n_T^j - n_i^j) / (n_T^j - 1), the bandwidth job j needs on
/// the link of a cluster holding @p on_cluster of its @p total nodes (0 for a one-node job).
double link_demand(int on_cluster, int total, double pnbw);

/// Eq. 5: BW_i^sat = BW_i^max / (BW_i^consumed + BW_i^j); above 1 the link is not saturated.
double saturation_degree(double max, double consumed, double demand);

/// Eq. 6: SC_i^j = (BW_i^sat)^-1.
double link_slowdown(double max, double consumed, double demand);

/// @brief Whether node k of a cluster may take a task at all: Gamma > 0 and its intra-cluster
/// link has PNBW^j free (the Admission System's per-node bandwidth limit, section 2).
bool node_eligible(const Node& node, const Job& job);

/// @brief Where a job's tasks go: for each cluster, the indices of the nodes given a task.
struct Assignment {
  std::vector<std::vector<int>> nodes;  //!< nodes[i]: node indices in cluster i
  int on_cluster(std::size_t i) const { return static_cast<int>(nodes[i].size()); }
  int total() const;
};

/// @brief The model's prediction for one assignment.
struct Prediction {
  double processing_slowdown = 1.0;     //!< SP^j, eq. 3
  double communication_slowdown = 1.0;  //!< SC^j, eq. 7 (at least 1, see README)
  double time = 0.0;                    //!< T^e, eq. 1
  bool saturated = false;               //!< some link the job uses has BW^sat < 1
};

/// @brief Evaluates eqs. 1-7 for @p assignment. A link counts for SC^j only when the job has
/// nodes on both sides of it (0 < n_i < n_T); SC^j is at least 1 (an unsaturated link does not
/// make communication faster than dedicated).
Prediction predict(const Platform& platform, const Job& job, const Assignment& assignment);

}  // namespace mcb::matching
