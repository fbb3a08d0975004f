#include "jobscripts/campaign.hpp"

int main(int argc, char** argv) { return mcb::campaign::run_program(argc, argv); }
