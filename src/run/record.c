/* Recording a machine (xray --record): the files a replay (replay/replay.c)
 * reads besides the points, written from a machine and its report. */
#include "run/run.h"
#include "machine/machine.h"

#include <stdio.h>

/* The first processor's block of /proc/cpuinfo (empty where there is none). */
int
xray_record_cpuinfo(FILE *f)
{
  char line[4096];
  FILE *in = fopen("/proc/cpuinfo", "r");

  if (!in)
    return 0;
  while (fgets(line, sizeof line, in) && line[0] != '\n')
    fputs(line, f);
  fclose(in);
  return ferror(f) ? -1 : 0;
}

int
xray_record_machine(FILE *f, xray_machine *m, const xray_report *r)
{
  int cpu[XRAY__MAX_CPUS], n = xray__machine_cpus(m, cpu, XRAY__MAX_CPUS), i;
  size_t j;

  fprintf(f, "# xray recording: clocks, page, usable CPUs, the OS view\n");
  fprintf(f, "xray %s\n", xray_version());
  fprintf(f, "tick_hz %.0f\ncore_hz %.0f\npage %zu\ntenants %d\ncpus", m->tick_hz, m->core_hz,
          m->page, m->tenants);
  for (i = 0; i < n && i < XRAY__MAX_CPUS; i++)
    fprintf(f, " %d", cpu[i]);
  fprintf(f, "\n");
  /* The CPU the probes measured on: their labels name the others. */
  if (m->home >= 0)
    fprintf(f, "home %d\n", m->home);
  for (j = 0; j < r->n; j++)
    if (r->v[j].have_os)
      fprintf(f, "os %s %.17g %s\n", r->v[j].name, r->v[j].os_value, r->v[j].os_source);
  return ferror(f) ? -1 : 0;
}
