#include "apps/ensflow/app.hpp"

int main(int argc, char** argv) { return mcb::ensflow::run_program(argc, argv); }
