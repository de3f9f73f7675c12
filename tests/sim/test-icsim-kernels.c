/* The icache probe's own kernel, predicted statically: for each simulated
 * L1I geometry, src/icsim finds the largest loop of 8-byte NOPs (laid out
 * as kernels/machine-code.c lays it out: the statements end on a 64-byte
 * boundary, then dec, jz and an indirect jump back) whose references stay
 * hits or first-misses in the loop; the probe, run on that simulated
 * machine, must measure that size within 3 %.  LRU geometries only: the
 * static analysis is of LRU caches. */
#include "xray-internal.h"
#include "icsim/icsim.h"
#include "../tap.h"

#include <string.h>

#define MAXN 40000

static const char *const specs[] = {
  "l1i=8K:2:64",   "l1i=12K:3:64",  "l1i=20K:5:64",  "l1i=24K:6:64", "l1i=32K:8:64", "l1i=40K:5:64",
  "l1i=48K:12:64", "l1i=64K:4:128", "l1i=80K:20:64", "l1i=96K:6:64", "l1i=12K:3:32", "l1i=64K:1:64",
};

static uint64_t insn[MAXN + 8];

/* Whether a loop of n 8-byte NOPs fits: no reference in the loop misses
 * past its first iteration. */
static int
fits(size_t n, unsigned long size, unsigned long ways, unsigned long line)
{
  const uint64_t end = UINT64_C(1) << 30;
  struct xray__icblock b[3];
  struct xray__icfunc f = { "kernel", 0, 3 };
  struct xray__icprog p = { b, 3, &f, 1, 0 };
  struct xray__icsim s;
  size_t i, r;
  int ok = 1;

  for (i = 0; i < n; i++)
    insn[i] = end - (n - i) * 8;
  insn[n] = end; /* dec %rdi */
  insn[n + 1] = end + 3; /* jz 1f */
  insn[n + 2] = end + 5; /* jmp *%rsi */
  insn[n + 3] = end + 7; /* ret */
  b[0] = (struct xray__icblock){ insn, n + 2, end + 5, { 1, 2 }, -1 };
  b[1] = (struct xray__icblock){ insn + n + 2, 1, end + 7, { 0, -1 }, -1 };
  b[2] = (struct xray__icblock){ insn + n + 3, 1, end + 8, { -1, -1 }, -1 };
  if (xray__icsim_analyse(&s, &p, size, ways, line))
    return -1;
  for (r = 0; r < s.nrefs; r++)
    if (s.node_loop[s.ref[r].node] >= 0 && s.ref[r].level[0] != XRAY__IC_HIT
        && s.ref[r].level[0] != XRAY__IC_FIRST)
      ok = 0;
  xray__icsim_free(&s);
  return ok;
}

/* The code footprint of the largest loop that fits, as the probe reports
 * sizes: loop bytes in whole 64-byte blocks. */
static double
predicted(unsigned long size, unsigned long ways, unsigned long line)
{
  size_t a = 1, b = MAXN;

  while (b - a > 1) {
    size_t mid = (a + b) / 2;
    if (fits(mid, size, ways, line) == 1)
      a = mid;
    else
      b = mid;
  }
  return (double) ((a * 8 + XRAY__LOOP_TAIL_BYTES + 63) / 64 * 64);
}

int
main(void)
{
  size_t i;

  tap_plan((int) (sizeof specs / sizeof *specs));
  for (i = 0; i < sizeof specs / sizeof *specs; i++) {
    char err[256] = "", src[48];
    xray_machine *m = xray_machine_simulated(specs[i], err, sizeof err);
    static xray_report r;
    double size, ways, line, want;
    const xray_value *v;

    xray__os_view(m, "XRAY_L1I_SIZE", &size, src, sizeof src);
    xray__os_view(m, "XRAY_L1I_ASSOC", &ways, src, sizeof src);
    xray__os_view(m, "XRAY_L1I_LINE", &line, src, sizeof src);
    want = predicted((unsigned long) size, (unsigned long) ways, (unsigned long) line);
    xray__report_init(&r);
    xray_probe_run(xray_probe_find("icache"), m, &r);
    v = xray_report_get(&r, "XRAY_L1I_SIZE");
    tap_ok(v->source == XRAY_SOURCE_MEASURED && v->value >= want * 0.97 && v->value <= want * 1.03,
           "%s: icsim predicts the 8-byte NOP loop fits up to %.0f bytes; the probe measures "
           "%g (%s)",
           specs[i], want, v->value, v->reason[0] ? v->reason : "measured");
    xray_machine_free(m);
  }
  return tap_done();
}
