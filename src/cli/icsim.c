/* xray icsim [--cache=SIZE:WAYS:LINE] [--simulate=SPEC] [--iterations=N]
 *            [--format=FORMAT] FILE [FUNCTION]...
 *
 * Static instruction-cache simulation of FILE's machine code (see
 * xray_icsim in xray.h and xray(1)).  Without --cache, the L1I's size,
 * ways and line are measured here by the icache probe (on the simulated
 * machine of --simulate, if given), and all three must be confirmed. */
#include "cli/cli.h"
#include "xray.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
icsim_usage(FILE *f, const char *prog)
{
  fprintf(f,
          "Usage: %s icsim [OPTION]... FILE [FUNCTION]...\n"
          "Static instruction-cache simulation (Mueller and Whalley) of the machine code\n"
          "of FILE (ELF, x86-64 or AArch64): each loop of each FUNCTION (every function\n"
          "FILE defines if none is named), with what it calls in FILE, its references\n"
          "categorised always-hit, always-miss, first-miss or conflict, and whether it\n"
          "fits the cache.\n"
          "\n"
          "  -c, --cache=SIZE:WAYS:LINE  the cache (SIZE takes K and M suffixes); by\n"
          "                        default the L1I as the icache probe measures it here\n"
          "  -s, --simulate=SPEC   measure the L1I of a simulated machine instead\n"
          "  -n, --iterations=N    also the hit and miss totals of a run in which each\n"
          "                        loop's header runs N times per entry\n"
          "  -f, --format=FORMAT   text (default) or json\n"
          "  -h, --help            display this help and exit\n"
          "\nExit status: 0 on success, 1 if FILE cannot be analysed or the L1I is not\n"
          "established here, 2 on a usage error.\n",
          prog);
}

static void
icsim_usage_error(const char *prog, const char *what, const char *arg)
{
  fprintf(stderr, "%s icsim: %s '%s'\nTry '%s icsim --help' for more information.\n", prog, what,
          arg, prog);
  exit(2);
}

/* SIZE:WAYS:LINE, SIZE with K or M; 0, or -1. */
static int
parse_cache(const char *s, unsigned long g[3])
{
  char *end;
  int i;

  for (i = 0; i < 3; i++) {
    g[i] = strtoul(s, &end, 10);
    if (end == s || g[i] == 0)
      return -1;
    if (i == 0 && (*end == 'K' || *end == 'M'))
      g[i] *= *end++ == 'K' ? 1024 : 1024 * 1024;
    if (*end != (i < 2 ? ':' : '\0'))
      return -1;
    s = end + 1;
  }
  return g[0] % (g[1] * g[2]) == 0 ? 0 : -1;
}

/* The L1I's geometry as measured by the icache probe: 0, or -1 with why
 * on stderr. */
static int
measure_l1i(const char *prog, const char *simulate, unsigned long g[3])
{
  static const char *const names[] = { "XRAY_L1I_SIZE", "XRAY_L1I_ASSOC", "XRAY_L1I_LINE" };
  char err[640] = "";
  xray_machine *m = simulate ? xray_machine_simulated(simulate, err, sizeof err)
                             : xray_machine_real(err, sizeof err);
  xray_report *r = m ? xray_report_new() : NULL;
  int i, rc = 0;

  if (!m || !r) {
    fprintf(stderr, "%s icsim: %s\n", prog, m ? "out of memory" : err);
    xray_machine_free(m);
    return -1;
  }
  xray_probe_run(xray_probe_find("icache"), m, r);
  for (i = 0; i < 3 && rc == 0; i++) {
    const xray_value *v = xray_report_get(r, names[i]);
    if (!v || xray_value_source(v) != XRAY_SOURCE_MEASURED || !xray_value_confirmed(v)) {
      fprintf(stderr, "%s icsim: %s is not established here (%s): give --cache=SIZE:WAYS:LINE\n",
              prog, names[i],
              !v                                                 ? "no value"
                  : xray_value_source(v) == XRAY_SOURCE_MEASURED ? "not confirmed"
                                                                 : xray_value_reason(v));
      rc = -1;
    } else
      g[i] = (unsigned long) xray_value_number(v);
  }
  if (rc == 0) {
    /* A capacity measured within 3 %: the sets follow from ways and line,
     * a power of two where one is that close (every L1I we know). */
    unsigned long way = g[1] * g[2], sets = (g[0] + way / 2) / way, p = 1;
    while (2 * p * way <= g[0] + g[0] / 32)
      p *= 2;
    g[0] = (p * way >= g[0] - g[0] / 32 ? p : sets ? sets : 1) * way;
    fprintf(stderr, "%s icsim: the L1I as measured here: %lu bytes, %lu ways, %lu-byte lines\n",
            prog, g[0], g[1], g[2]);
  }
  xray_report_free(r);
  xray_machine_free(m);
  return rc;
}

int
xray_cli_icsim(int argc, char **argv, const char *prog)
{
  static const struct option opts[] = { { "cache", required_argument, 0, 'c' },
                                        { "simulate", required_argument, 0, 's' },
                                        { "iterations", required_argument, 0, 'n' },
                                        { "format", required_argument, 0, 'f' },
                                        { "help", no_argument, 0, 'h' },
                                        { 0, 0, 0, 0 } };
  const char *simulate = NULL;
  unsigned long g[3] = { 0, 0, 0 };
  char *buf = NULL;
  size_t len = 0;
  FILE *out = NULL;
  char err[640] = "";
  unsigned long iterations = 0;
  int c, json = 0, have_cache = 0;

  while ((c = getopt_long(argc, argv, "c:s:n:f:h", opts, NULL)) != -1)
    switch (c) {
    case 'n': {
      char *end;
      iterations = strtoul(optarg, &end, 10);
      if (*end || !iterations || iterations > 1000000000UL || *optarg == '-')
        icsim_usage_error(prog, "invalid --iterations (1 to 1000000000):", optarg);
      break;
    }
    case 'c':
      if (parse_cache(optarg, g))
        icsim_usage_error(prog,
                          "invalid --cache (SIZE:WAYS:LINE, SIZE a multiple of WAYS "
                          "times LINE, e.g. 32K:8:64):",
                          optarg);
      have_cache = 1;
      break;
    case 's':
      simulate = optarg;
      break;
    case 'f':
      if (strcmp(optarg, "json") != 0 && strcmp(optarg, "text") != 0)
        icsim_usage_error(prog, "invalid --format (text or json):", optarg);
      json = strcmp(optarg, "json") == 0;
      break;
    case 'h':
      icsim_usage(stdout, prog);
      return 0;
    default:
      fprintf(stderr, "Try '%s icsim --help' for more information.\n", prog);
      return 2;
    }
  if (optind >= argc)
    icsim_usage_error(prog, "needs a FILE to analyse:", "");
  if (!have_cache && measure_l1i(prog, simulate, g))
    return 1;
  /* The results go out whole or not at all. */
  if (!(out = open_memstream(&buf, &len))
      || xray_icsim(out, argv[optind], (const char *const *) argv + optind + 1,
                    (size_t) (argc - optind - 1), g[0], g[1], g[2], iterations, json, err,
                    sizeof err)
      || fclose(out) != 0) {
    fprintf(stderr, "%s icsim: %s\n", prog, err[0] ? err : "out of memory");
    free(buf);
    return 1;
  }
  c = fwrite(buf, 1, len, stdout) == len && fflush(stdout) == 0;
  free(buf);
  if (!c) {
    fprintf(stderr, "%s icsim: cannot write the results\n", prog);
    return 1;
  }
  return 0;
}
