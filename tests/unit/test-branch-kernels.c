/* The branch kernels as compiled: for every compiler and optimisation
 * level given, each of the Counter Inspection Toolkit's seven benchmarks
 * must execute, per iteration, the conditional branches (CR) and direct
 * jumps (D) of the paper's Table 1, and the penalty kernels must keep
 * their if a branch (no select).  The counts come from the compiler's
 * assembly (kernels/branch.c), and each kernel is also run once.
 *
 * usage: test-branch-kernels [CC:CFLAGS]...  (default: $CC at -O0 and
 * -O2, and $CLANG at both where set; -O2 with a project's strict warning
 * flags, which must not fail the kernels). */
#include "xray-internal.h"
#include "../tap.h"

#include <stdlib.h>
#include <string.h>

static void
check_compiler(const char *cc, const char *cflags)
{
  struct xray__branch_set s;
  char err[200];
  size_t k;

  memset(&s, 0, sizeof s);
  if (!tap_ok(xray__branch_build(&s, cc, cflags, err, sizeof err) == 0, "%s %s: built (%s)", cc,
              cflags, err)) {
    tap_count += XRAY__BK_N;
    tap_failed += XRAY__BK_N;
    return;
  }
  for (k = 0; k < XRAY__BK_N; k++) {
    const struct xray__bkernel *bk = xray__bkernel_at(k);
    const struct xray__bcount *c = &s.count[k];
    long r = s.fn[k](1000, 500);
    (void) r;
    if (k < XRAY__BK_CIT)
      tap_ok(c->ok && c->selects == 0 && c->cond >= 2,
             "%s %s: %s keeps its if a branch: "
             "%.2f conditional per iteration, %d selects%s%s",
             cc, cflags, bk->name, c->cond, c->selects, c->ok ? "" : "; ", c->why);
    else
      tap_ok(c->ok && c->cond == bk->paper[1] && c->direct == bk->paper[3] && c->selects == 0,
             "%s %s: %s: CR %.2f D %.2f (Table 1: %g %g), T %.2f, %.1f instructions, "
             "%.1f loads, %d selects%s%s",
             cc, cflags, bk->name, c->cond, c->direct, bk->paper[1], bk->paper[3], c->taken,
             c->insns, c->loads, c->selects, c->ok ? "" : "; ", c->why);
  }
  xray__branch_free(&s);
}

int
main(int argc, char **argv)
{
  const char *cc = getenv("CC"), *clang = getenv("CLANG");
  int i;

  if (!cc || !*cc)
    cc = "cc";
  if (argc > 1) {
    tap_plan((argc - 1) * (XRAY__BK_N + 1));
    for (i = 1; i < argc; i++) {
      char *spec = strdup(argv[i]), *colon = strchr(spec, ':');
      if (colon)
        *colon++ = 0;
      check_compiler(spec, colon ? colon : "");
      free(spec);
    }
    return tap_done();
  }
  tap_plan(4 * (XRAY__BK_N + 1));
  check_compiler(cc, "-O0");
  check_compiler(cc, "-O2 -Wall -Wextra -Werror -pedantic -Wmissing-prototypes");
  for (i = 0; i < 2; i++) {
    if (clang && *clang)
      check_compiler(clang, i ? "-O2 -Weverything -Werror" : "-O0");
    else {
      int k;
      for (k = 0; k <= XRAY__BK_N; k++)
        printf("ok %d - # SKIP no clang (configure found none; install-deps --test-tools "
               "installs it)\n",
               ++tap_count);
    }
  }
  return tap_done();
}
