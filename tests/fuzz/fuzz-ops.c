/* The --ops (TYPE:OP,...) and --types (TYPE,...) parsers; the first byte
 * picks which. */
#include "xray-internal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static xray_machine *m;
  char err[256] = "", *s;

  if (size < 1)
    return 0;
  if (!m && !(m = xray_machine_simulated("clock=3000", err, sizeof err)))
    abort();
  if (!(s = fuzz_string(data + 1, size - 1)))
    return 0;
  if (xray_machine_set_option(m, data[0] & 1 ? "types" : "ops", s, err, sizeof err) && !err[0])
    abort();
  free(s);
  return 0;
}
