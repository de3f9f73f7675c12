/* The probe registry: every probe, in the order xray runs them. */
#include "probes.h"

#include <string.h>

extern const xray_probe xray__probe_icache, xray__probe_dcache, xray__probe_caches, xray__probe_tlb,
    xray__probe_freq, xray__probe_latency, xray__probe_throughput, xray__probe_fma,
    xray__probe_registers, xray__probe_cores, xray__probe_branch, xray__probe_lru,
    xray__probe_bandwidth, xray__probe_sharing, xray__probe_interference;

static const xray_probe *const probes[] = {
  &xray__probe_icache,    &xray__probe_dcache,  &xray__probe_caches,      &xray__probe_tlb,
  &xray__probe_freq,      &xray__probe_latency, &xray__probe_throughput,  &xray__probe_fma,
  &xray__probe_registers, &xray__probe_cores,   &xray__probe_branch,      &xray__probe_lru,
  &xray__probe_bandwidth, &xray__probe_sharing, &xray__probe_interference
};

const xray_probe *
xray_probe_at(size_t i)
{
  return i < sizeof probes / sizeof *probes ? probes[i] : NULL;
}

const xray_probe *
xray_probe_find(const char *name)
{
  size_t i;

  for (i = 0; i < sizeof probes / sizeof *probes; i++)
    if (strcmp(probes[i]->name, name) == 0)
      return probes[i];
  return NULL;
}
