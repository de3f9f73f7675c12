/* For AX_XRAY_CODE_FITS: a small hot loop, and one of some 20 KB of code. */
int
hot(const int *a, int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * 3;
  return s;
}

#define S s = s * 3 + a[(i ^ s) & 1023];
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
