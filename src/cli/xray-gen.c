/* xray-gen: the nano-benchmark generator as a command, for the tests and
 * for anyone who wants to read or build the kernels xray times. */
#include "xray-internal.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "xray-gen";

static void
usage(FILE *f)
{
  size_t i;
  const struct xray_stmt *s;

  fprintf(f,
          "Usage: %s --lang=c [--main] [--style=barrier|switch] --stmt=S1|...|Sn\n"
          "                --type=TYPE --vars=N [--unroll=U]\n"
          "  or:  %s --lang=asm|bin --stmt=NAME --count=N\n"
          "Write a generated nano-benchmark to standard output.\n"
          "\n"
          "  --lang=c       C kernel 'long xray_kernel(long iters)' for the\n"
          "                 configuration <S1|...|Sn, TYPE, N> over p0..p(N-1)\n"
          "  --main         append a driver that prints code_bytes and ns_per_statement\n"
          "                 and writes the timed code's bytes to its first argument\n"
          "  --lang=asm     GNU assembler for N machine-code statements NAME\n"
          "  --lang=bin     the same kernel as raw machine code\n"
          "  -h, --help     display this help and exit\n"
          "  -V, --version  output version information and exit\n"
          "\nMachine-code statements:\n",
          prog, prog);
  for (i = 0; (s = xray__stmt_at(i)); i++)
    fprintf(f, "  %-9s %s (%u bytes)\n", s->name, s->desc, s->len);
}

static long
number(const char *opt, const char *s, long lo, long hi)
{
  char *end;
  long v;

  errno = 0;
  v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) {
    fprintf(stderr, "%s: invalid %s '%s' (a whole number from %ld to %ld)\n", prog, opt, s, lo,
            hi);
    exit(2);
  }
  return v;
}

/* 0, or 1 with a message if anything written to the standard output was
 * lost (a full disk, a closed pipe). */
static int
stdout_done(void)
{
  if (fflush(stdout) == 0 && !ferror(stdout))
    return 0;
  fprintf(stderr, "%s: cannot write the standard output: %s\n", prog, strerror(errno ? errno : EIO));
  return 1;
}

/* The machine-code statement stmt, count times: assembly text for lang
 * "asm", raw bytes for "bin"; an exit status. */
static int
write_machine_code(const char *lang, const char *stmt, long count)
{
  const struct xray_stmt *s = xray__stmt_find(stmt);
  unsigned char *bytes;
  size_t len;

  if (!s) {
    fprintf(stderr, "%s: unknown machine-code statement '%s' (see --help)\n", prog, stmt);
    return 2;
  }
  if (count < 1) {
    fprintf(stderr, "%s: --lang=%s needs --count=N\n", prog, lang);
    return 2;
  }
  if (lang[0] == 'a')
    xray__machine_code_write_asm(stdout, s, (size_t) count);
  else {
    if (xray__machine_code_bytes(s, (size_t) count, &bytes, &len)) {
      fprintf(stderr, "%s: out of memory\n", prog);
      return 1;
    }
    fwrite(bytes, 1, len, stdout);
    free(bytes);
  }
  return stdout_done();
}

/* The kernel of c in language lang; an exit status. */
static int
generate(const char *lang, const struct xray_cspec *c, long count, int with_main)
{
  char err[256];

  if (strcmp(lang, "c") == 0) {
    if (xray__gen_c(stdout, c, err, sizeof err)) {
      fprintf(stderr, "%s: %s\n", prog, err);
      return 2;
    }
    if (with_main)
      xray__gen_c_main(stdout, c);
    return stdout_done();
  }
  if (strcmp(lang, "asm") == 0 || strcmp(lang, "bin") == 0)
    return write_machine_code(lang, c->stmts, count);
  fprintf(stderr, "%s: invalid --lang '%s' (c, asm or bin)\n", prog, lang);
  return 2;
}

int
main(int argc, char **argv)
{
  static const struct option opts[] = {
    { "lang", required_argument, 0, 'l' },   { "stmt", required_argument, 0, 's' },
    { "type", required_argument, 0, 't' },   { "vars", required_argument, 0, 'n' },
    { "unroll", required_argument, 0, 'u' }, { "style", required_argument, 0, 'y' },
    { "count", required_argument, 0, 'c' },  { "main", no_argument, 0, 'm' },
    { "help", no_argument, 0, 'h' },         { "version", no_argument, 0, 'V' },
    { 0, 0, 0, 0 }
  };
  struct xray_cspec c = { NULL, "long", 2, 32, XRAY__STYLE_BARRIER };
  const char *lang = NULL;
  long count = 0;
  int opt, with_main = 0;

  while ((opt = getopt_long(argc, argv, "hV", opts, NULL)) != -1)
    switch (opt) {
    case 'l':
      lang = optarg;
      break;
    case 's':
      c.stmts = optarg;
      break;
    case 't':
      c.type = optarg;
      break;
    case 'n':
      c.nvars = (int) number("--vars", optarg, 1, 32);
      break;
    case 'u':
      c.unroll = (int) number("--unroll", optarg, 1, 100000);
      break;
    case 'c':
      count = number("--count", optarg, 1, 1L << 22);
      break;
    case 'y':
      if (strcmp(optarg, "barrier") == 0)
        c.style = XRAY__STYLE_BARRIER;
      else if (strcmp(optarg, "switch") == 0)
        c.style = XRAY__STYLE_SWITCH;
      else {
        fprintf(stderr, "%s: invalid --style '%s' (barrier or switch)\n", prog, optarg);
        return 2;
      }
      break;
    case 'm':
      with_main = 1;
      break;
    case 'h':
      usage(stdout);
      return stdout_done();
    case 'V':
      printf("xray-gen %s\n", xray_version());
      return stdout_done();
    default:
      fprintf(stderr, "Try '%s --help' for more information.\n", prog);
      return 2;
    }
  if (optind < argc || !lang || !c.stmts) {
    fprintf(stderr, "%s: %s\nTry '%s --help' for more information.\n", prog,
            optind < argc ? "unexpected argument" : "--lang and --stmt are required", prog);
    return 2;
  }
  return generate(lang, &c, count, with_main);
}
