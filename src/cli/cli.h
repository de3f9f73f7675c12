/* cli/: the xray command's parts. */
#ifndef XRAY__CLI_H
#define XRAY__CLI_H

/* cli/icsim.c: `xray icsim ...`, argv[0] being "icsim"; the exit status. */
int xray_cli_icsim(int argc, char **argv, const char *prog);

/* cli/counters.c: `xray counters ...`, argv[0] being "counters". */
int xray_cli_counters(int argc, char **argv, const char *prog);

#endif
