/* The nano-benchmark generator for C kernels.
 *
 * Input: a configuration <S1|...|Sn, type, nvars> (Yotov et al., Sec. 2.4)
 * and an unroll factor U.  Output: a C function
 *
 *     long xray_kernel(long iters)
 *
 * that runs W statements per iteration (W the smallest multiple of n not
 * below U).  Where the compiler supports label addresses, iters == 0
 * returns the code size of the timed loop (&&finish - &&start) and
 * iters < 0 its start address, for structural checks of the code.
 *
 * The paper's shape (a switch on a volatile with `i = R/U; t = now()` in
 * case 0) breaks on today's compilers: gcc jump-threads the case entries
 * (the label size came out negative) and clang keeps the variables of the
 * multi-entry loop in memory.  Two shapes that survive:
 *
 *  - barrier (GNU C): after each statement an empty asm names the variables
 *    it wrote as register operands.  The compiler must materialise them in
 *    registers and cannot combine, reassociate, contract (a*b+c across
 *    statements), vectorise or move statements across it, yet allocates
 *    registers freely;
 *  - switch (ISO C): the paper's form with every case entry seeing the same
 *    state (loop count and variables set before the switch), for compilers
 *    without GNU extensions.  clang spills its variables; it is a fallback.
 */
#include "kernels/kernels.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VARS 48
#define MAX_STMTS 64

static int
is_float_type(const char *t)
{
  return strstr(t, "float") || strstr(t, "double") || strstr(t, "__m");
}

/* Variables pK written by statement s: those followed by an assignment
 * operator (=, +=, -=, *=, /=, ...) but not ==. */
static unsigned long long
written_vars(const char *s)
{
  unsigned long long mask = 0;
  const char *p = s;

  while (*p) {
    if (*p == 'p' && (p == s || !(isalnum((unsigned char) p[-1]) || p[-1] == '_'))
        && isdigit((unsigned char) p[1])) {
      char *end;
      long v = strtol(p + 1, &end, 10);
      const char *q = end;
      while (*q == ' ')
        q++;
      if (strchr("+-*/%&|^", *q) && q[1] == '=')
        q++;
      if (*q == '=' && q[1] != '=' && v >= 0 && v < MAX_VARS)
        mask |= 1ULL << v;
      p = end;
    } else
      p++;
  }
  return mask;
}

/* Split "S1|S2|...": returns the count, or -1. */
static int
split(const char *stmts, char **out, char *buf, size_t buflen)
{
  int n = 0;
  char *p;

  if (strlen(stmts) >= buflen)
    return -1;
  strcpy(buf, stmts);
  out[n++] = buf;
  for (p = buf; *p; p++)
    if (*p == '|') {
      *p = 0;
      if (n == MAX_STMTS)
        return -1;
      out[n++] = p + 1;
    }
  return n;
}

/* A configuration, checked: its statements and what each writes. */
struct parsed {
  char buf[4096], *st[MAX_STMTS];
  unsigned long long written[MAX_STMTS];
  int n, w;
};

static int
parse(const struct xray_cspec *c, struct parsed *p, char *err, size_t errlen)
{
  int k;

  if (c->nvars < 1 || c->nvars > MAX_VARS) {
    snprintf(err, errlen, "nvars %d: must be 1 to %d", c->nvars, MAX_VARS);
    return -1;
  }
  if (c->unroll < 1 || c->unroll > 100000) {
    snprintf(err, errlen, "unroll %d: must be 1 to 100000", c->unroll);
    return -1;
  }
  if ((p->n = split(c->stmts, p->st, p->buf, sizeof p->buf)) < 1) {
    snprintf(err, errlen, "too many or too long statements");
    return -1;
  }
  for (k = 0; k < p->n; k++) {
    p->written[k] = written_vars(p->st[k]);
    if (!p->written[k]) {
      snprintf(err, errlen, "statement '%s' assigns none of p0..p%d", p->st[k], c->nvars - 1);
      return -1;
    }
    if (p->written[k] >> c->nvars) {
      snprintf(err, errlen, "statement '%s' uses a variable beyond p%d", p->st[k],
               c->nvars - 1);
      return -1;
    }
  }
  p->w = (c->unroll + p->n - 1) / p->n * p->n;
  return 0;
}

/* Register constraints and the comment that marks each barrier in the
 * compiler's assembly output (for the static check of the timed loop). */
static void
preamble(FILE *f, int vectors)
{
  fprintf(f, "#include <stddef.h>\n");
  /* The x86 vector types as the compilers' own headers define them:
   * <immintrin.h> alone costs gcc most of a second to read. */
  if (vectors)
    fprintf(f,
            "#if defined(__x86_64__) || defined(__i386__)\n"
            "#define XRAY__V(t, n, b) typedef t n __attribute__((__vector_size__(b), "
            "__may_alias__));\n"
            "XRAY__V(float, __m128, 16) XRAY__V(double, __m128d, 16) "
            "XRAY__V(long long, __m128i, 16)\n"
            "XRAY__V(float, __m256, 32) XRAY__V(double, __m256d, 32) "
            "XRAY__V(long long, __m256i, 32)\n"
            "XRAY__V(float, __m512, 64) XRAY__V(double, __m512d, 64) "
            "XRAY__V(long long, __m512i, 64)\n"
            "#elif defined(__ARM_NEON)\n#include <arm_neon.h>\n#endif\n");
  /* On x86 "x" names xmm0-15 only: with AVX-512 the compiler has 32, and
   * a barrier that wants each variable in one of the low 16 leaves it no
   * free low register to move a variable into when all 32 are live, so
   * the count came out one short; "v" names every register the target
   * has. */
  fprintf(f,
          "#if defined(__x86_64__) || defined(__i386__)\n#ifdef __AVX512F__\n"
          "#define XRAY__FREG \"+v\"\n#else\n#define XRAY__FREG \"+x\"\n#endif\n"
          "#define XRAY__MARK(s) \"# xray \" s\n"
          "#elif defined(__aarch64__) || defined(__arm__)\n#define XRAY__FREG \"+w\"\n"
          "#define XRAY__MARK(s) \"// xray \" s\n"
          "#else\n#define XRAY__FREG \"+g\"\n#define XRAY__MARK(s) \"# xray \" s\n#endif\n");
}

/* The kernel function xray_kernel<sfx> and its data.  Alone (sfx empty),
 * iters == 0 returns the timed loop's code size and iters < 0 its address
 * (GNU C); in a set, iters == -2 sets every variable to 1. */
static void
body(FILE *f, const struct xray_cspec *c, const struct parsed *p, const char *sfx)
{
  const char *cons = is_float_type(c->type) ? "XRAY__FREG" : "\"+r\"";
  int k, v;

  fprintf(f, "typedef %s xray_t%s;\nvolatile xray_t%s xray_init%s[%d];\n"
             "volatile xray_t%s xray_sink%s[%d];\nvolatile int xray_entry%s;\n\n",
          c->type, sfx, sfx, sfx, c->nvars, sfx, sfx, c->nvars, sfx);
  /* Inlined into a caller, the label difference can fold to nonsense. */
  fprintf(f, "#ifdef __GNUC__\n__attribute__((noinline))\n#endif\n"
             "long\nxray_kernel%s(long iters)\n{\n",
          sfx);
  if (*sfx) {
    fprintf(f, "  if (iters == -2) {\n    xray_t%s one = (xray_t%s){ 0 };\n    int k;\n\n"
               "    one = one + 1;\n    for (k = 0; k < %d; k++)\n"
               "      xray_init%s[k] = one;\n    return 0;\n  }\n  {\n",
            sfx, sfx, c->nvars, sfx);
  }
  for (v = 0; v < c->nvars; v++)
    fprintf(f, "  xray_t%s p%d = xray_init%s[%d];\n", sfx, v, sfx, v);
  fprintf(f, "  long i = iters;\n\n");
  /* A set is read through its markers, not its label addresses, which
   * -Wpedantic and clang's -Wreturn-stack-address turn into errors under
   * a project's -Werror. */
  if (!*sfx)
    fprintf(f, "#ifdef __GNUC__\n  if (iters == 0)\n"
               "    return (long) ((char *) &&xray_finish - (char *) &&xray_start);\n"
               "  if (iters < 0)\n    return (long) (size_t) &&xray_start;\n#endif\n");
  if (c->style == XRAY__STYLE_SWITCH) {
    fprintf(f, "  switch (xray_entry%s) {\n  case 0:\n  xray_start:\n", sfx);
    for (k = 0; k < p->w; k++)
      fprintf(f, "  case %d: %s;\n", k + 1, p->st[k % p->n]);
    fprintf(f, "    if (--i > 0)\n      goto xray_start;\n  }\n");
  } else {
    fprintf(f, "xray_start:\n");
    for (k = 0; k < p->w; k++) {
      int first = 1;
      fprintf(f, "  %s;\n  __asm__ __volatile__(XRAY__MARK(\"k%s s%d\") :", p->st[k % p->n], sfx,
              k + 1);
      for (v = 0; v < c->nvars; v++)
        if (p->written[k % p->n] & (1ULL << v)) {
          fprintf(f, "%s %s(p%d)", first ? "" : ",", cons, v);
          first = 0;
        }
      fprintf(f, ");\n");
    }
    fprintf(f, "  if (--i > 0)\n    goto xray_start;\n");
  }
  if (!*sfx)
    fprintf(f, "#ifdef __GNUC__\nxray_finish:\n#endif\n");
  for (v = 0; v < c->nvars; v++)
    fprintf(f, "  xray_sink%s[%d] = p%d;\n", sfx, v, v);
  fprintf(f, "  return 0;\n%s}\n", *sfx ? "  }\n" : "");
}

int
xray__gen_c(FILE *f, const struct xray_cspec *c, char *err, size_t errlen)
{
  struct parsed p;

  if (parse(c, &p, err, errlen))
    return -1;
  fprintf(f, "/* Generated by xray: <%s, %s, %d>, %d statements per iteration, %s form. */\n",
          c->stmts, c->type, c->nvars, p.w, c->style == XRAY__STYLE_SWITCH ? "switch" : "barrier");
  preamble(f, strstr(c->type, "__m") != NULL);
  body(f, c, &p, "");
  return ferror(f) ? -1 : 0;
}

/* The types kernels can use: plain C ones (always there) and vector ones
 * with the preprocessor condition under which the compiler offers them at
 * the flags in use.  m4/ax_xray_common.m4 keeps a copy for autoconf-time
 * checks; tests/docs.test compares the two. */
static const char *const scalar_types[] = { "char",
                                            "short",
                                            "int",
                                            "long",
                                            "long long",
                                            "unsigned char",
                                            "unsigned short",
                                            "unsigned",
                                            "unsigned int",
                                            "unsigned long",
                                            "unsigned long long",
                                            "float",
                                            "double",
                                            "long double" };
static const struct {
  const char *type, *cond;
} vector_types[] = {
  { "__m128", "defined(__SSE__)" },
  { "__m128d", "defined(__SSE2__)" },
  { "__m128i", "defined(__SSE2__)" },
  { "__m256", "defined(__AVX__)" },
  { "__m256d", "defined(__AVX__)" },
  { "__m256i", "defined(__AVX2__)" },
  { "__m512", "defined(__AVX512F__)" },
  { "__m512d", "defined(__AVX512F__)" },
  { "__m512i", "defined(__AVX512F__)" },
  { "float32x4_t", "defined(__ARM_NEON)" },
  { "float64x2_t", "defined(__ARM_NEON) && defined(__aarch64__)" },
  { "int32x4_t", "defined(__ARM_NEON)" },
  { "int64x2_t", "defined(__ARM_NEON)" },
};

/* The preprocessor condition under which the compiler offers a type at the
 * flags in use; NULL if it is a plain C type (always there), "0" if xray
 * does not know it. */
const char *
xray__type_condition(const char *t)
{
  size_t i;

  for (i = 0; i < sizeof vector_types / sizeof *vector_types; i++)
    if (strcmp(t, vector_types[i].type) == 0)
      return vector_types[i].cond;
  for (i = 0; i < sizeof scalar_types / sizeof *scalar_types; i++)
    if (strcmp(t, scalar_types[i]) == 0)
      return NULL;
  return "0";
}

void
xray__type_list(char *buf, size_t len)
{
  size_t i, n = sizeof scalar_types / sizeof *scalar_types;
  int at = 0;

  buf[0] = 0;
  for (i = 0; i < n + sizeof vector_types / sizeof *vector_types && at >= 0 && (size_t) at < len;
       i++)
    at += snprintf(buf + at, len - (size_t) at, "%s%s", i ? ", " : "",
                   i < n ? scalar_types[i] : vector_types[i - n].type);
}

int
xray__type_class(const char *t)
{
  const char *c = xray__type_condition(t);

  if (c && strcmp(c, "0") != 0)
    return 2;
  return strstr(t, "float") || strstr(t, "double") ? 1 : 0;
}

void
xray__gen_quiet(FILE *f)
{
  /* The project's -Werror must not fail generated kernels: their vector
   * typedefs and compound literals are GNU C, and their functions have
   * no header. */
  fprintf(f, "#ifdef __clang__\n#pragma clang diagnostic ignored \"-Weverything\"\n"
             "#elif defined(__GNUC__)\n#pragma GCC diagnostic ignored \"-Wpedantic\"\n"
             "#pragma GCC diagnostic ignored \"-Wmissing-prototypes\"\n"
             "#pragma GCC diagnostic ignored \"-Wmissing-declarations\"\n#endif\n");
}

int
xray__gen_kernel_set(FILE *f, const struct xray_cspec *c, size_t n, size_t part, size_t parts,
                     char *err, size_t errlen)
{
  size_t i;
  int vectors = 0;

  for (i = part; i < n; i += parts)
    vectors |= xray__type_condition(c[i].type) != NULL;
  fprintf(f,
          "/* Generated by xray: kernels %zu, %zu, ... of %zu in barrier form.\n"
          " * xray_kernel_K(-2) sets kernel K's variables; xray_avail_K says\n"
          " * whether the compiler offers its type at these flags. */\n",
          part, part + parts, n);
  xray__gen_quiet(f);
  preamble(f, vectors);
  for (i = part; i < n; i += parts) {
    struct xray_cspec k = c[i];
    struct parsed p;
    const char *cond = xray__type_condition(k.type);
    char sfx[24];

    k.style = XRAY__STYLE_BARRIER;
    if (parse(&k, &p, err, errlen))
      return -1;
    snprintf(sfx, sizeof sfx, "_%zu", i);
    fprintf(f, "\n/* kernel %zu: <%s, %s, %d>, %d statements per iteration */\n", i, k.stmts,
            k.type, k.nvars, p.w);
    if (cond)
      fprintf(f, "#if %s\n", cond);
    body(f, &k, &p, sfx);
    fprintf(f, "int xray_avail%s = 1;\n", sfx);
    if (cond)
      fprintf(f, "#else\nlong xray_kernel%s(long iters) { (void) iters; return -1; }\n"
                 "int xray_avail%s = 0;\n#endif\n",
              sfx, sfx);
  }
  return ferror(f) ? -1 : 0;
}

/* A driver: prints the loop's code size, writes its bytes to argv[1] if
 * given, and times it: iterations doubled until a sample lasts 20 us, then
 * the second smallest of 50 samples, in ns per statement. */
int
xray__gen_c_main(FILE *f, const struct xray_cspec *c)
{
  char buf[4096], *st[MAX_STMTS];
  int n = split(c->stmts, st, buf, sizeof buf), w;

  if (n < 1)
    return -1;
  w = (c->unroll + n - 1) / n * n;
  fprintf(f, "\n#include <stdio.h>\n#include <time.h>\n#include <string.h>\n\n"
             "static double\nxray_ns(long r)\n{\n  struct timespec a, b;\n\n"
             "  clock_gettime(CLOCK_MONOTONIC, &a);\n  xray_kernel(r);\n"
             "  clock_gettime(CLOCK_MONOTONIC, &b);\n"
             "  return (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);\n}\n\n"
             "int\nmain(int argc, char **argv)\n{\n"
             "  long size = xray_kernel(0), r = 1;\n  double lo = 1e300, lo2 = 1e300, t;\n"
             "  int i;\n\n"
             "  memset((void *) xray_init, 0, sizeof xray_init);\n"
             "  printf(\"code_bytes %%ld\\n\", size);\n"
             "#ifdef __GNUC__\n"
             "  if (argc > 1 && size > 0) {\n"
             "    FILE *o = fopen(argv[1], \"wb\");\n"
             "    const char *p = (const char *) (size_t) xray_kernel(-1);\n"
             "    if (!o || fwrite(p, 1, (size_t) size, o) != (size_t) size || fclose(o))\n"
             "      return 1;\n"
             "  }\n#endif\n"
             "  (void) argv;\n"
             "  while (xray_ns(r) < 20000 && r < (1L << 30))\n    r *= 2;\n"
             "  for (i = 0; i < 50; i++) {\n    t = xray_ns(r);\n"
             "    if (t < lo) {\n      lo2 = lo;\n      lo = t;\n    } else if (t < lo2)\n"
             "      lo2 = t;\n  }\n"
             "  printf(\"ns_per_statement %%.4f\\n\", lo2 / ((double) r * %d));\n"
             "  return 0;\n}\n",
          w);
  return ferror(f) ? -1 : 0;
}
