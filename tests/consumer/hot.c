/* For AX_XRAY_CODE_FITS: a small hot loop, and one of some 20 KB of code. */
int
hot(const int *a, int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * 3;
  return s;
}

/* Each statement a dependent load the empty asm keeps apart: some 11
 * bytes of code each, which the compiler neither merges nor spends
 * seconds scheduling as one long chain of arithmetic. */
#define S __asm__ __volatile__("" : "+r"(s)); s += a[s & 1023];
#define S10 S S S S S S S S S S
#define S100 S10 S10 S10 S10 S10 S10 S10 S10 S10 S10
#define S1000 S100 S100 S100 S100 S100 S100 S100 S100 S100 S100

int
huge(const int *a, int n)
{
  int s = 0;
  for (int i = 0; i < n; i++) {
    S1000 S1000
  }
  return s;
}
