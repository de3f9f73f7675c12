/* The --simulate spec parser: any input is refused with a message or gives
 * a machine, never a crash or an overflow. */
#include "xray-internal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char err[256] = "", *spec = fuzz_string(data, size);
  xray_machine *m;

  if (!spec)
    return 0;
  m = xray_machine_simulated(spec, err, sizeof err);
  if (!m && !err[0])
    abort();                    /* a refusal must say why */
  xray_machine_free(m);
  free(spec);
  return 0;
}
