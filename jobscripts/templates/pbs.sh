#!/bin/bash
# PBS jobscript written by mcb-campaign: campaign @CAMPAIGN@, runs @KEYS@.
# mcb-campaign submits it from the campaign folder (qsub @SCRIPT@); so can you.
@DIRECTIVES@

# PBS gives no per-task cluster; a co-allocated run gets a map file whose labels follow the
# select statement's chunk order, which $PBS_NODEFILE and the launcher's slot order keep.
@RUN_SECTION@
