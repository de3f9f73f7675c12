/* The counting path of measure/pmu.c: the access check gives 0 or one
 * line of reason; a software event (page faults, which the kernel counts
 * on every machine) counts fresh pages touched through perf_event_open,
 * enable, disable and read; an unknown event is refused by name. */
#include "xray-internal.h"
#include "../tap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGES 64

static void
touch(void *ctx)
{
  char *p = ctx;
  size_t i;

  for (i = 0; i < PAGES; i++)
    p[i * 4096] = 1;
}

int
main(void)
{
  char why[400] = "", err[200] = "";
  int rc = xray__pmu_access(why, sizeof why);
  char *mem;
  double n;

  tap_plan(3);
  tap_ok(rc == 0 || (why[0] && !strchr(why, '\n')), "counters %s%s",
         rc ? "unavailable: " : "available", why);
  mem = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  n = mem == MAP_FAILED ? -1 : xray__pmu_count("page-faults", touch, mem, err, sizeof err);
  if (n < 0
      && (strstr(err, "ermission") || strstr(err, "not Linux") || strstr(err, "not permitted")))
    printf("ok 2 - # SKIP software events cannot be counted here: %s\n", err), tap_count++;
  else
    tap_ok(n >= PAGES && n < 4 * PAGES, "page-faults over %d fresh pages: %g (%s)", PAGES, n, err);
  n = xray__pmu_count("no-such-event", touch, mem, err, sizeof err);
  tap_ok(n < 0 && strstr(err, "no-such-event"), "an unknown event is refused by name: %s", err);
  return tap_done();
}
