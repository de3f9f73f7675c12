/* Kernel statements, as xray-gen and the latency probes take them: the
 * generator's parser (C kernels and kernel sets) and the simulated core's
 * reading of the same text.  Input: a byte for the type, one for the
 * variables, then the statements ("S1|S2|..."). */
#include "xray-internal.h"
#include "fuzz.h"

#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const char *const types[] = { "long", "double", "int", "float", "__m256d", "char",
                                       "unsigned long long", "__m512i", "nosuchtype", "" };
  static FILE *sink;
  struct xray_cspec c;
  struct xray__sim_core cpu;
  char err[256], *s;

  if (size < 2)
    return 0;
  if (!sink && !(sink = fopen("/dev/null", "w")))
    abort();
  if (!(s = fuzz_string(data + 2, size - 2)))
    return 0;
  c.stmts = s;
  c.type = types[data[0] % (sizeof types / sizeof *types)];
  c.nvars = data[1] % 64;
  c.unroll = 1 + data[1] / 4;
  c.style = data[0] & 0x80 ? XRAY__STYLE_SWITCH : XRAY__STYLE_BARRIER;
  err[0] = 0;
  if (xray__gen_c(sink, &c, err, sizeof err) && !err[0])
    abort();
  err[0] = 0;
  if (xray__gen_kernel_set(sink, &c, 1, 0, 1, err, sizeof err) && !err[0])
    abort();
  xray__sim_core_init(&cpu);
  err[0] = 0;
  if (xray__sim_core_kbuild(&cpu, &c, 1, err, sizeof err) && !err[0])
    abort();
  xray__sim_core_free(&cpu);
  free(s);
  return 0;
}
