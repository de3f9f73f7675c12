/* xray counters [--events=LIST] [--list] [--require] [--format=FORMAT]
 *               [--simulate=SPEC] [--cc=CC] [--cflags=CFLAGS]
 *
 * Hardware events placed in the Counter Inspection Toolkit's categories
 * (xray_counters_run in xray.h, xray(1)).  Where this machine's counters
 * cannot be read, one line says why and how to fix it, and the exit
 * status is 0 (1 with --require): a machine without counters is not an
 * error of xray's. */
#include "cli/cli.h"
#include "xray.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
counters_usage(FILE *f, const char *prog)
{
  fprintf(f,
          "Usage: %s counters [OPTION]...\n"
          "Count hardware events over the Counter Inspection Toolkit's branch benchmarks\n"
          "and place each in a category: CE conditional branches executed, CR retired,\n"
          "T taken, D direct jumps, M mispredictions; and over pointer chases between\n"
          "the data levels' capacities: L1D-HIT, L1D-MISS, L2-HIT, ... (or none).\n"
          "\n"
          "  -e, --events=LIST     comma-separated event names (perf's generic names,\n"
          "                        rHEX raw events, PAPI native names where built with\n"
          "                        PAPI); default: every event the machine offers\n"
          "  -l, --list            list the events the machine offers, and exit\n"
          "      --levels=SIZES    the data levels' capacities for the cache signatures\n"
          "                        (e.g. 32K,1M,32M); default: measured here\n"
          "  -r, --require         exit 1 where counters cannot be read here\n"
          "  -f, --format=FORMAT   text (default), json, shell (the best event per\n"
          "                        category as XRAY_EVENT_...='NAME') or header\n"
          "  -s, --simulate=SPEC   a simulated machine (with pmu=SEED) instead\n"
          "                        (default: $XRAY_SIMULATE, if set)\n"
          "      --cc=CC, --cflags=CFLAGS   compile the benchmarks so (cc, -O2)\n"
          "  -h, --help            display this help and exit\n"
          "\nExit status: 0 on success and where counters cannot be read (the reason is\n"
          "printed), 1 if they cannot be read and --require was given or the\n"
          "benchmarks cannot be built, 2 on a usage error.\n",
          prog);
}

static void
counters_usage_error(const char *prog, const char *what, const char *arg)
{
  fprintf(stderr, "%s counters: %s '%s'\nTry '%s counters --help' for more information.\n", prog,
          what, arg, prog);
  exit(2);
}

/* Where there are no counters: one line in the format asked for. */
static void
no_counters(FILE *f, xray_format fmt, const char *why)
{
  if (fmt == XRAY_FORMAT_JSON) {
    fprintf(f, "{\n  \"available\": false,\n  \"reason\": \"");
    for (; *why; why++)
      fprintf(f,
              *why == '"' || *why == '\\'     ? "\\%c"
                  : (unsigned char) *why < 32 ? " "
                                              : "%c",
              *why);
    fprintf(f, "\"\n}\n");
  } else if (fmt == XRAY_FORMAT_SHELL)
    fprintf(f, "# counters unavailable: %s\n", why);
  else if (fmt == XRAY_FORMAT_HEADER)
    fprintf(f, "/* counters unavailable: %s */\n", why);
  else
    fprintf(f, "no counters here: %s\n", why);
}

static int
list_events(xray_machine *m, const char *prog)
{
  char why[400];
  const char *name;
  size_t i;

  if (xray_machine_counters(m, why, sizeof why)) {
    printf("no counters here: %s\n", why);
    return 0;
  }
  for (i = 0; (name = xray_machine_event_at(m, i)); i++)
    printf("%s\n", name);
  if (fflush(stdout) != 0) {
    fprintf(stderr, "%s counters: cannot write the list\n", prog);
    return 1;
  }
  return 0;
}

struct copts {
  const char *simulate, *events, *levels, *cc, *cflags;
  xray_format fmt;
  int require, list;
};

/* The options into o; returns -1 to go on, else the exit status. */
static int
parse_counters(int argc, char **argv, const char *prog, struct copts *o)
{
  static const struct option opts[] = {
    { "events", required_argument, 0, 'e' }, { "list", no_argument, 0, 'l' },
    { "levels", required_argument, 0, 'L' }, { "require", no_argument, 0, 'r' },
    { "format", required_argument, 0, 'f' }, { "simulate", required_argument, 0, 's' },
    { "cc", required_argument, 0, 'C' },     { "cflags", required_argument, 0, 'F' },
    { "help", no_argument, 0, 'h' },         { 0, 0, 0, 0 }
  };
  int c;

  while ((c = getopt_long(argc, argv, "e:lrf:s:h", opts, NULL)) != -1)
    switch (c) {
    case 'e':
      o->events = optarg;
      break;
    case 'l':
      o->list = 1;
      break;
    case 'L':
      o->levels = optarg;
      if (!*optarg || strspn(optarg, "0123456789.KM,") != strlen(optarg))
        counters_usage_error(prog, "invalid --levels (capacities such as 32K,1M,32M):", optarg);
      break;
    case 'r':
      o->require = 1;
      break;
    case 'f':
      if (xray_format_parse(optarg, &o->fmt))
        counters_usage_error(prog, "invalid --format (text, json, shell or header):", optarg);
      break;
    case 's':
      o->simulate = optarg;
      break;
    case 'C':
      o->cc = optarg;
      break;
    case 'F':
      o->cflags = optarg;
      break;
    case 'h':
      counters_usage(stdout, prog);
      return 0;
    default:
      fprintf(stderr, "Try '%s counters --help' for more information.\n", prog);
      return 2;
    }
  if (optind < argc)
    counters_usage_error(prog, "takes no operand:", argv[optind]);
  if (o->events && !*o->events)
    counters_usage_error(prog, "invalid --events (comma-separated names):", o->events);
  /* As for the probes: a build system's use of AX_XRAY_EVENTS can be
   * tested against a simulated machine. */
  if (!o->simulate && getenv("XRAY_SIMULATE") && *getenv("XRAY_SIMULATE"))
    o->simulate = getenv("XRAY_SIMULATE");
  return -1;
}

/* The results go out whole or not at all. */
static int
write_results(const xray_counters *res, xray_format fmt, const char *prog)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  int rc = !out || xray_counters_write(res, out, fmt) || fclose(out) != 0;

  if (!rc)
    rc = !(fwrite(buf, 1, len, stdout) == len && fflush(stdout) == 0);
  free(buf);
  if (rc)
    fprintf(stderr, "%s counters: cannot write the results\n", prog);
  return rc;
}

int
xray_cli_counters(int argc, char **argv, const char *prog)
{
  struct copts o = { NULL, NULL, NULL, NULL, NULL, XRAY_FORMAT_TEXT, 0, 0 };
  char err[640] = "";
  xray_machine *m;
  xray_counters *res;
  int no_pmu = 0, rc = parse_counters(argc, argv, prog, &o);

  if (rc >= 0)
    return rc;
  m = o.simulate ? xray_machine_simulated(o.simulate, err, sizeof err)
                 : xray_machine_real(err, sizeof err);
  if (!m) {
    fprintf(stderr, "%s counters: %s\n", prog, err);
    return o.simulate ? 2 : 1;
  }
  if (xray_machine_set_compiler(m, o.cc, o.cflags)) {
    fprintf(stderr, "%s counters: out of memory\n", prog);
    xray_machine_free(m);
    return 1;
  }
  if (o.list) {
    rc = list_events(m, prog);
    xray_machine_free(m);
    return rc;
  }
  res = xray_counters_run(m, o.events, o.levels, &no_pmu, err, sizeof err);
  xray_machine_free(m);
  if (!res && no_pmu) {
    no_counters(stdout, o.fmt, err);
    if (o.require)
      fprintf(stderr, "%s counters: --require: no counters here\n", prog);
    return fflush(stdout) == 0 ? o.require : 1;
  }
  if (!res) {
    fprintf(stderr, "%s counters: %s\n", prog, err);
    return 1;
  }
  rc = write_results(res, o.fmt, prog);
  xray_counters_free(res);
  return rc;
}
