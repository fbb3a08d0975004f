// The batch-queue library without a batch system: readers of the commands' outputs on outputs
// captured from the rig's Slurm 22.05 and Grid Engine 8.1.9 (and PBS Pro's documented format),
// the systems file, and PBS's command lines through a runner that records them (no PBS runs
// here; Slurm and Grid Engine are tested for real in queue_rig_test.cpp).
#include "common/errors.hpp"
#include "jobscripts/queue.hpp"
#include "jobscripts/queue_parse.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace {

using namespace mcb::campaign;
namespace p = mcb::campaign::parse;
using Strings = std::vector<std::string>;

TEST(QueueParse, HostListsExpandRangesListsAndLeadingZeros) {
  EXPECT_EQ(p::expand_hostlist("a[1-2]"), (Strings{"a1", "a2"}));
  EXPECT_EQ(p::expand_hostlist("a1"), (Strings{"a1"}));
  EXPECT_EQ(p::expand_hostlist("n[08-10,12],login,x[3]-ib"),
            (Strings{"n08", "n09", "n10", "n12", "login", "x3-ib"}));
  EXPECT_EQ(p::expand_hostlist(""), Strings{});
  EXPECT_THROW(p::expand_hostlist("a[2-1]"), std::runtime_error);
  EXPECT_THROW(p::expand_hostlist("a[1-x]"), std::runtime_error);
  EXPECT_THROW(p::expand_hostlist("a[1-2"), std::runtime_error);
}

TEST(QueueParse, TimesReadAndWrite) {
  EXPECT_EQ(p::hms(30), "0:00:30");
  EXPECT_EQ(p::hms(59.2), "0:01:00");
  EXPECT_EQ(p::hms(3723), "1:02:03");
  EXPECT_EQ(p::hms(0), "0:00:01");
  const auto t = p::local_time("2026-11-27T17:02:31");
  ASSERT_TRUE(t.has_value());
  const auto later = p::local_time("2026-11-27T17:03:31");
  ASSERT_TRUE(later.has_value());
  EXPECT_DOUBLE_EQ(*later - *t, 60.0);
  EXPECT_FALSE(p::local_time("Unknown").has_value());
  EXPECT_FALSE(p::local_time("N/A").has_value());
}

// `scontrol --oneliner show job`, cut to the fields around the ones read.
const std::string kRunning =
    "JobId=100000 JobName=t1 UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901759 "
    "Nice=0 Account=(null) QOS=(null) JobState=RUNNING Reason=None Dependency=(null) Requeue=1 "
    "Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:02 TimeLimit=00:01:00 "
    "StartTime=2026-11-27T17:00:39 Partition=a AllocNode:Sid=localhost:6882 "
    "ReqNodeList=(null) ExcNodeList=(null) NodeList=a[1-2] BatchHost=a1 NumNodes=2 NumCPUs=4 "
    "Command=w/job.sh 20 WorkDir=/tmp/rig-t1/w StdErr=/tmp/rig-t1/w/s1.err Power= \n";
const std::string kHeld =
    "JobId=100001 JobName=t2 UserId=root(0) JobState=PENDING Reason=JobHeldUser "
    "Dependency=(null) ExitCode=0:0 StartTime=Unknown ReqNodeList=(null) ExcNodeList=(null) "
    "NodeList= NumNodes=2 NumCPUs=3 Command=w/job.sh 5 Power= \n";

TEST(QueueParse, SlurmJobStates) {
  const JobStatus running = p::slurm_job(kRunning);
  EXPECT_EQ(running.phase, JobPhase::running);
  EXPECT_EQ(running.state, "RUNNING");
  EXPECT_EQ(running.nodes, (Strings{"a1", "a2"}));
  EXPECT_EQ(running.reason, "");

  const JobStatus held = p::slurm_job(kHeld);
  EXPECT_EQ(held.phase, JobPhase::pending);
  EXPECT_TRUE(held.held);
  EXPECT_EQ(held.nodes, Strings{});
  EXPECT_EQ(held.reason, "JobHeldUser");

  const JobStatus waiting = p::slurm_job(
      "JobId=7 JobState=PENDING Reason=Resources ExitCode=0:0 ReqNodeList=(null) NodeList= \n");
  EXPECT_EQ(waiting.phase, JobPhase::pending);
  EXPECT_FALSE(waiting.held);
  EXPECT_EQ(waiting.reason, "Resources");

  const JobStatus cancelled = p::slurm_job(
      "JobId=100000 JobState=CANCELLED Reason=None ExitCode=0:9 ReqNodeList=(null) "
      "ExcNodeList=(null) NodeList=a[1-2]\n");
  EXPECT_EQ(cancelled.phase, JobPhase::failed);
  EXPECT_EQ(cancelled.reason, "exit code 0:9");
  EXPECT_EQ(cancelled.nodes, (Strings{"a1", "a2"}));

  EXPECT_EQ(p::slurm_job("JobId=3 JobState=COMPLETED Reason=None ExitCode=0:0 NodeList=a1\n").phase,
            JobPhase::done);
  EXPECT_EQ(
      p::slurm_job("JobId=3 JobState=COMPLETING Reason=None ExitCode=0:0 NodeList=a1\n").phase,
      JobPhase::done);
  EXPECT_EQ(
      p::slurm_job("JobId=3 JobState=COMPLETING Reason=None ExitCode=2:0 NodeList=a1\n").phase,
      JobPhase::failed);
  EXPECT_EQ(p::slurm_job("JobId=3 JobState=SUSPENDED Reason=None ExitCode=0:0 NodeList=a1\n").phase,
            JobPhase::suspended);
  EXPECT_EQ(
      p::slurm_job("JobId=3 JobState=TIMEOUT Reason=TimeLimit ExitCode=0:15 NodeList=a1\n").phase,
      JobPhase::failed);
  // A heterogeneous job: one line per component, the nodes of all.
  EXPECT_EQ(p::slurm_job("JobId=9 HetJobId=9 JobState=RUNNING Reason=None ExitCode=0:0 "
                         "NodeList=a1\nJobId=10 HetJobId=9 JobState=RUNNING Reason=None "
                         "ExitCode=0:0 NodeList=b[1-2]\n")
                .nodes,
            (Strings{"a1", "b1", "b2"}));
  EXPECT_THROW(p::slurm_job("slurm_load_jobs error: Invalid job id specified\n"),
               std::runtime_error);
}

TEST(QueueParse, SlurmAccountingQueueAndTotal) {
  const JobStatus acct = p::slurm_accounted_job("CANCELLED by 0|a[1-2]|0:9\n");
  EXPECT_EQ(acct.phase, JobPhase::failed);
  EXPECT_EQ(acct.state, "CANCELLED");
  EXPECT_EQ(acct.nodes, (Strings{"a1", "a2"}));
  EXPECT_EQ(p::slurm_accounted_job("COMPLETED|b1|0:0\n").phase, JobPhase::done);

  const QueueState q = p::slurm_queue(
      "PENDING|3|JobHeldUser\nRUNNING|2|None\nPENDING|4|Resources\nPENDING|2|Priority\n"
      "SUSPENDED|1|None\nCOMPLETING|2|None\n");
  EXPECT_EQ(q.held_jobs, 1);
  EXPECT_EQ(q.pending_jobs, 2);
  EXPECT_EQ(q.pending_processors, 6);
  EXPECT_EQ(q.running_jobs, 2);
  EXPECT_EQ(q.running_processors, 3);
  EXPECT_THROW(p::slurm_queue("RUNNING|x|None\n"), std::runtime_error);
  EXPECT_EQ(p::slurm_total_processors("4/0/0/4\n"), 4);
  EXPECT_THROW(p::slurm_total_processors("4/0\n"), std::runtime_error);

  const double start = p::slurm_test_only_start(
      "sbatch: Job 100002 to start at 2026-11-27T17:02:31 using 4 processors on nodes a[1-2] in "
      "partition a\n");
  EXPECT_EQ(start, *p::local_time("2026-11-27T17:02:31"));
  EXPECT_THROW(p::slurm_test_only_start("sbatch: error: Batch job submission failed\n"),
               std::runtime_error);
}

// `qstat -u '*'` and `qstat -u '*' -g t` from the rig's cell.
const std::string kQstat =
    "job-ID  prior   name       user         state submit/start at     queue                    "
    "      slots ja-task-ID \n"
    "------------------------------------------------------------------------------------------"
    "-----------------------\n"
    "      1 0.25000 t1         root         r     11/27/2026 17:00:03 all.q@vm                 "
    "          2        \n"
    "      3 0.75000 t3         root         qw    11/27/2026 17:00:04                          "
    "          4        \n"
    "      2 0.00000 t2         root         hqw   11/27/2026 17:00:03                          "
    "          3        \n"
    "      4 0.25000 my job     root         s     11/27/2026 17:00:09 all.q@vm                 "
    "          1        \n";
const std::string kQstatHosts =
    "job-ID  prior   name       user         state submit/start at     queue                    "
    "                                    master ja-task-ID \n"
    "------------------------------------------------------------------------------------------"
    "------------------------------------------------------\n"
    "      1 0.25000 t1         root         r     11/27/2026 17:00:03 all.q@node-17.cluster.exam"
    "ple.org                    MASTER        \n"
    "                                                                  all.q@node-17.cluster.exam"
    "ple.org                    SLAVE         \n"
    "                                                                  all.q@node-18.cluster.exam"
    "ple.org                    SLAVE         \n"
    "      3 0.75000 t3         root         qw    11/27/2026 17:00:04                          "
    "                                                      \n";

TEST(QueueParse, GridEngineListings) {
  const std::vector<p::SgeJob> jobs = p::sge_jobs(kQstat);
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[0].id, "1");
  EXPECT_EQ(jobs[0].state, "r");
  EXPECT_EQ(jobs[0].slots, 2);
  EXPECT_EQ(jobs[0].nodes, Strings{"vm"});
  EXPECT_EQ(jobs[1].state, "qw");
  EXPECT_EQ(jobs[1].slots, 4);
  EXPECT_EQ(jobs[2].state, "hqw");
  EXPECT_EQ(jobs[3].state, "s");  // a name with a blank
  EXPECT_EQ(p::sge_listed_status(jobs[0]).phase, JobPhase::running);
  EXPECT_EQ(p::sge_listed_status(jobs[1]).phase, JobPhase::pending);
  EXPECT_TRUE(p::sge_listed_status(jobs[2]).held);
  EXPECT_EQ(p::sge_listed_status(jobs[3]).phase, JobPhase::suspended);
  const QueueState q = p::sge_queue(jobs);
  EXPECT_EQ(q.pending_jobs, 1);
  EXPECT_EQ(q.pending_processors, 4);
  EXPECT_EQ(q.held_jobs, 1);
  EXPECT_EQ(q.running_jobs, 2);
  EXPECT_EQ(q.running_processors, 3);

  const std::vector<p::SgeJob> hosts = p::sge_jobs(kQstatHosts);
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].nodes,
            (Strings{"node-17.cluster.example.org", "node-18.cluster.example.org"}));
  EXPECT_EQ(hosts[1].nodes, Strings{});
  EXPECT_TRUE(p::sge_jobs("").empty());
  EXPECT_THROW(p::sge_jobs("error: commlib error: got select error\n"), std::runtime_error);

  for (const auto& [state, phase] :
       std::vector<std::pair<std::string, JobPhase>>{{"Eqw", JobPhase::failed},
                                                     {"dr", JobPhase::running},
                                                     {"Rq", JobPhase::pending},
                                                     {"Rr", JobPhase::running},
                                                     {"t", JobPhase::running},
                                                     {"S", JobPhase::suspended}}) {
    p::SgeJob job;
    job.state = state;
    EXPECT_EQ(p::sge_listed_status(job).phase, phase) << state;
  }
}

TEST(QueueParse, GridEngineAccountingAndTotal) {
  const std::string ended =
      "==============================================================\n"
      "qname        all.q               \nhostname     vm                  \n"
      "jobnumber    3                   \ngranted_pe   mpi                 \n"
      "slots        4                   \nfailed       100 : assumedly after job\n"
      "exit_status  137                  (Killed)\nru_wallclock 3s\n";
  const JobStatus killed = p::sge_accounted_job(ended);
  EXPECT_EQ(killed.phase, JobPhase::failed);
  EXPECT_EQ(killed.reason,
            "failed 100 : assumedly after job, exit_status 137                  (Killed)");
  EXPECT_EQ(killed.nodes, Strings{"vm"});
  // A requeued job: the record of its rescheduling, then the one of its run.
  const JobStatus rerun = p::sge_accounted_job(
      "==============\nhostname vm\nfailed       25  : rescheduling\nexit_status  0\n"
      "==============\nhostname vm\nfailed       0    \nexit_status  0                   \n");
  EXPECT_EQ(rerun.phase, JobPhase::done);
  EXPECT_THROW(p::sge_accounted_job("error: job id 99 not found\n"), std::runtime_error);

  EXPECT_EQ(
      p::sge_total_slots(
          "CLUSTER QUEUE                   CQLOAD   USED    RES  AVAIL  TOTAL aoACDS  cdsuE  \n"
          "--------------------------------------------------------------------------------\n"
          "all.q                             4.46      0      0      4      4      0      0 \n"
          "long.q                            0.10      2      0      6      8      0      0 \n"),
      12);
  EXPECT_THROW(p::sge_total_slots(""), std::runtime_error);
}

// PBS Pro's `qstat -x -f` and `pbsnodes -a` formats.
const std::string kPbsJobs =
    "Job Id: 12.pbs-server\n    Job_Name = mcb\n    job_state = R\n    queue = workq\n"
    "    exec_host = n1/0*2+n2/0*2\n    Resource_List.ncpus = 4\n"
    "    Variable_List = PBS_O_HOME=/root,PBS_O_LANG=C,\n\tPBS_O_PATH=/usr/bin\n"
    "    comment = Job run at Fri Nov 27 at 17:00 on (n1:ncpus=2)+(n2:ncpus=2)\n\n"
    "Job Id: 13.pbs-server\n    job_state = H\n    Resource_List.ncpus = 2\n\n"
    "Job Id: 14.pbs-server\n    job_state = Q\n    Resource_List.ncpus = 8\n\n"
    "Job Id: 11.pbs-server\n    job_state = F\n    Resource_List.ncpus = 1\n"
    "    exec_host = n3/0\n    Exit_status = 271\n    comment = Job run ... and finished\n";

TEST(QueueParse, PbsJobsNodesAndQueue) {
  const std::vector<p::PbsJob> jobs = p::pbs_jobs(kPbsJobs);
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[0].id, "12.pbs-server");
  EXPECT_EQ(jobs[0].nodes, (Strings{"n1", "n2"}));
  EXPECT_EQ(p::pbs_status(jobs[0]).phase, JobPhase::running);
  EXPECT_TRUE(p::pbs_status(jobs[1]).held);
  EXPECT_EQ(p::pbs_status(jobs[2]).phase, JobPhase::pending);
  const JobStatus finished = p::pbs_status(jobs[3]);
  EXPECT_EQ(finished.phase, JobPhase::failed);
  EXPECT_EQ(finished.reason, "Exit_status 271 (Job run ... and finished)");
  const QueueState q = p::pbs_queue(jobs);
  EXPECT_EQ(q.running_jobs, 1);
  EXPECT_EQ(q.running_processors, 4);
  EXPECT_EQ(q.pending_jobs, 1);
  EXPECT_EQ(q.pending_processors, 8);
  EXPECT_EQ(q.held_jobs, 1);
  EXPECT_THROW(p::pbs_jobs("Job Id: 1.s\n    Resource_List.ncpus = 2\n"), std::runtime_error);
  EXPECT_THROW(p::pbs_jobs("Job Id: 1.s\n    job_state = R\n    Exit_status = x\n"),
               std::runtime_error);

  EXPECT_EQ(p::pbs_total_processors("n1\n     Mom = n1\n     state = free\n"
                                    "     resources_available.ncpus = 4\n\n"
                                    "n2\n     state = down,offline\n"
                                    "     resources_available.ncpus = 4\n\n"
                                    "n3\n     state = job-busy\n"
                                    "     resources_available.ncpus = 8\n"),
            12);
}

// A runner that records every command and answers from a table (PBS cannot run here).
struct Recorder {
  std::vector<Strings> commands;
  std::vector<EnvList> envs;
  std::map<std::string, std::string> answers;  // program -> stdout
  CommandRunner runner() {
    return [this](const Strings& argv, const std::string&, const EnvList& env) {
      commands.push_back(argv);
      envs.push_back(env);
      Captured c;
      c.out = answers.count(argv[0]) ? answers[argv[0]] : "";
      return c;
    };
  }
};

TEST(QueuePbs, CommandLinesOfEveryOperation) {
  Recorder rec;
  rec.answers["qsub"] = "12.pbs-server\n";
  rec.answers["qstat"] = kPbsJobs;
  rec.answers["pbsnodes"] = "n1\n     state = free\n     resources_available.ncpus = 4\n";
  QueueConfig config{"site-p", "pbs", {{"PBS_SERVER", "pbs-server"}}, {{"queue", "workq"}}};
  const auto queue = make_queue(config, rec.runner());
  JobRequest r;
  r.script = "/work/pilot.sh";
  r.args = {"A", "it's"};
  r.name = "pilot a/1";
  r.processors = 4;
  r.time_limit_s = 90;
  r.hold = true;
  r.workdir = "/work/run";
  r.output = "/work/run/out";
  r.env = {{"MCB_SIDE", "a,b"}};
  EXPECT_EQ(queue->submit(r), "12.pbs-server");
  EXPECT_EQ(rec.commands.back(), (Strings{"qsub",
                                          "-N",
                                          "pilot_a_1",
                                          "-l",
                                          "select=1:ncpus=4:mpiprocs=4",
                                          "-l",
                                          "walltime=0:01:30",
                                          "-o",
                                          "/work/run/out",
                                          "-r",
                                          "y",
                                          "-V",
                                          "-j",
                                          "oe",
                                          "-h",
                                          "-q",
                                          "workq",
                                          "--",
                                          "/bin/sh",
                                          "-c",
                                          "cd \"$0\" && exec \"$@\"",
                                          "/work/run",
                                          "/work/pilot.sh",
                                          "A",
                                          "it's"}));
  EXPECT_EQ(rec.envs.back(), (EnvList{{"PBS_SERVER", "pbs-server"}, {"MCB_SIDE", "a,b"}}));

  EXPECT_EQ(queue->status("12.pbs-server").nodes, (Strings{"n1", "n2"}));
  EXPECT_EQ(rec.commands.back(), (Strings{"qstat", "-x", "-f", "12.pbs-server"}));
  const QueueState q = queue->queue_state();
  EXPECT_EQ(q.total_processors, 4);
  EXPECT_EQ(q.pending_processors, 8);
  queue->cancel("12");
  EXPECT_EQ(rec.commands.back(), (Strings{"qdel", "12"}));
  queue->hold("12");
  EXPECT_EQ(rec.commands.back(), (Strings{"qhold", "12"}));
  queue->release("12");
  EXPECT_EQ(rec.commands.back(), (Strings{"qrls", "12"}));
  queue->suspend("12");
  EXPECT_EQ(rec.commands.back(), (Strings{"qsig", "-s", "suspend", "12"}));
  queue->resume("12");
  EXPECT_EQ(rec.commands.back(), (Strings{"qsig", "-s", "resume", "12"}));
  queue->requeue("12");
  EXPECT_EQ(rec.commands.back(), (Strings{"qrerun", "12"}));
  const StartEstimate e = queue->start_estimate(4, 60);
  EXPECT_FALSE(e.start_time.has_value());
  EXPECT_EQ(e.source.rfind("none: ", 0), 0u) << e.source;
}

// Grid Engine's job operations; requeue is refused before any command runs (qmod -rj in 8.1 may
// leave the job's old instance running), with the reason in the error.
TEST(QueueGridEngine, JobOperationsAndNoRequeue) {
  Recorder rec;
  QueueConfig config{"site-g", "gridengine", {{"SGE_ROOT", "/var/lib/gridengine"}}, {}};
  const auto queue = make_queue(config, rec.runner());
  queue->hold("7");
  EXPECT_EQ(rec.commands.back(), (Strings{"qhold", "7"}));
  queue->release("7");
  EXPECT_EQ(rec.commands.back(), (Strings{"qrls", "7"}));
  queue->suspend("7");
  EXPECT_EQ(rec.commands.back(), (Strings{"qmod", "-sj", "7"}));
  queue->resume("7");
  EXPECT_EQ(rec.commands.back(), (Strings{"qmod", "-usj", "7"}));
  EXPECT_FALSE(queue->supports(Operation::requeue));
  const std::size_t ran = rec.commands.size();
  try {
    queue->requeue("7");
    ADD_FAILURE() << "requeue was not refused";
  } catch (const NotSupported& e) {
    EXPECT_NE(std::string(e.what()).find("site-g: gridengine cannot requeue a running job"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(rec.commands.size(), ran);
}

TEST(QueuePbs, CommandsFromTheConfiguredFolder) {
  Recorder rec;
  QueueConfig config{"site-p", "pbs", {}, {{"bin", "/opt/pbs/bin"}}};
  make_queue(config, rec.runner())->hold("12");
  EXPECT_EQ(rec.commands.back(), (Strings{"/opt/pbs/bin/qhold", "12"}));
}

TEST(QueuePbs, FailuresNameTheSystemAndTheCommand) {
  QueueConfig config{"site-p", "pbs", {}, {}};
  const auto queue = make_queue(config, [](const Strings&, const std::string&, const EnvList&) {
    Captured c;
    c.status.code = 1;
    c.err = "qdel: Unknown Job Id 99.pbs-server\n";
    return c;
  });
  try {
    queue->cancel("99.pbs-server");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "site-p: qdel: exit code 1: qdel: Unknown Job Id 99.pbs-server");
  }
  JobRequest r;
  r.script = "x.sh";
  r.workdir = "relative";
  EXPECT_THROW(queue->submit(r), mcb::UsageError);
  r.workdir = "/abs";
  r.processors = 0;
  EXPECT_THROW(queue->submit(r), mcb::UsageError);
}

TEST(QueueConfigs, TheRigsFileAndItsErrors) {
  mcb::testing::TempDir dir;
  const auto write = [&](const std::string& text) {
    std::ofstream(dir / "rig.env") << text;
    return dir / "rig.env";
  };
  const auto configs = read_queue_configs(
      write("# rig\n[slurm-a]\nkind = slurm\nenv = \"SLURM_CONF=/tmp/my rig/etc/slurm.conf\"\n"
            "partition = a\n[gridengine]\nkind = gridengine\nenv = SGE_ROOT=/tmp/r/gridengine\n"
            "env = SGE_QMASTER_PORT=4000\npe = mpi\nbin = /usr/lib/gridengine\n"));
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].name, "slurm-a");
  EXPECT_EQ(configs[0].kind, "slurm");
  EXPECT_EQ(configs[0].env, (EnvList{{"SLURM_CONF", "/tmp/my rig/etc/slurm.conf"}}));
  EXPECT_EQ(configs[0].settings.at("partition"), "a");
  EXPECT_EQ(configs[1].env.size(), 2u);
  EXPECT_EQ(configs[1].settings.at("pe"), "mpi");
  EXPECT_EQ(configs[1].settings.at("bin"), "/usr/lib/gridengine");

  const auto refused = [&](const std::string& text, const std::string& message) {
    const std::string path = write(text);
    try {
      read_queue_configs(path);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const mcb::UsageError& e) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  };
  const std::string f = dir / "rig.env";
  refused("[x]\nkind = lsf\n",
          f + ":2: kind: 'lsf' is not a batch system (slurm, gridengine, pbs)");
  refused("[x]\nkind = slurm\nenv = 1A=b\n", f + ":3: env: '1A=b' is not NAME=VALUE");
  refused("[x]\nkind = slurm\nenv = SLURM_CONF\n", f + ":3: env: 'SLURM_CONF' is not NAME=VALUE");
  refused("[x]\nkind = slurm\npe = mpi\n", f + ":3: 'pe' is not a setting of slurm systems");
  refused("[x]\nenv = A=b\n", f + ":1: [x] has no kind");
  refused("kind = slurm\n", f + ":1: 'kind' outside a [system] section");
  refused("# nothing\n", f + ": no [system] section");
  refused("[x]\nkind = slurm\n[x]\nkind = pbs\n", f + ":3: system 'x' twice");
  EXPECT_THROW(make_queue(QueueConfig{"x", "lsf", {}, {}}), mcb::UsageError);
}

}  // namespace
