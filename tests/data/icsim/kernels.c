/* Functions for tests/icsim.test: xray icsim reads them as the compiler
 * left them, at -O0, -O2 and -O3, with gcc and clang. */
double
dot(const double *a, const double *b, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

__attribute__((noinline)) static int
sq(int x)
{
  return x * x + 1;
}

int
sumsq(const int *a, int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += sq(a[i]);
  return s;
}

void
mm(int n, const double *a, const double *b, double *c)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int k = 0; k < n; k++)
        s += a[i * n + k] * b[k * n + j];
      c[i * n + j] = s;
    }
}

/* A loop of some 3 KB of code: more than a 1 KB cache holds. */
int
big(const int *a, int n)
{
  int s = 0;
  for (int i = 0; i < n; i++) {
    s = s * 3 + a[(i + 0) & 1023];
    s = s * 4 + a[(i + 1) & 1023];
    s = s * 5 + a[(i + 2) & 1023];
    s = s * 6 + a[(i + 3) & 1023];
    s = s * 7 + a[(i + 4) & 1023];
    s = s * 8 + a[(i + 5) & 1023];
    s = s * 9 + a[(i + 6) & 1023];
    s = s * 10 + a[(i + 7) & 1023];
    s = s * 11 + a[(i + 8) & 1023];
    s = s * 12 + a[(i + 9) & 1023];
    s = s * 13 + a[(i + 10) & 1023];
    s = s * 14 + a[(i + 11) & 1023];
    s = s * 15 + a[(i + 12) & 1023];
    s = s * 16 + a[(i + 13) & 1023];
    s = s * 17 + a[(i + 14) & 1023];
    s = s * 18 + a[(i + 15) & 1023];
    s = s * 19 + a[(i + 16) & 1023];
    s = s * 20 + a[(i + 17) & 1023];
    s = s * 21 + a[(i + 18) & 1023];
    s = s * 22 + a[(i + 19) & 1023];
    s = s * 23 + a[(i + 20) & 1023];
    s = s * 24 + a[(i + 21) & 1023];
    s = s * 25 + a[(i + 22) & 1023];
    s = s * 26 + a[(i + 23) & 1023];
    s = s * 27 + a[(i + 24) & 1023];
    s = s * 28 + a[(i + 25) & 1023];
    s = s * 29 + a[(i + 26) & 1023];
    s = s * 30 + a[(i + 27) & 1023];
    s = s * 31 + a[(i + 28) & 1023];
    s = s * 32 + a[(i + 29) & 1023];
    s = s * 33 + a[(i + 30) & 1023];
    s = s * 34 + a[(i + 31) & 1023];
    s = s * 35 + a[(i + 32) & 1023];
    s = s * 36 + a[(i + 33) & 1023];
    s = s * 37 + a[(i + 34) & 1023];
    s = s * 38 + a[(i + 35) & 1023];
    s = s * 39 + a[(i + 36) & 1023];
    s = s * 40 + a[(i + 37) & 1023];
    s = s * 41 + a[(i + 38) & 1023];
    s = s * 42 + a[(i + 39) & 1023];
    s = s * 43 + a[(i + 40) & 1023];
    s = s * 44 + a[(i + 41) & 1023];
    s = s * 45 + a[(i + 42) & 1023];
    s = s * 46 + a[(i + 43) & 1023];
    s = s * 47 + a[(i + 44) & 1023];
    s = s * 48 + a[(i + 45) & 1023];
    s = s * 49 + a[(i + 46) & 1023];
    s = s * 50 + a[(i + 47) & 1023];
    s = s * 51 + a[(i + 48) & 1023];
    s = s * 52 + a[(i + 49) & 1023];
    s = s * 53 + a[(i + 50) & 1023];
    s = s * 54 + a[(i + 51) & 1023];
    s = s * 55 + a[(i + 52) & 1023];
    s = s * 56 + a[(i + 53) & 1023];
    s = s * 57 + a[(i + 54) & 1023];
    s = s * 58 + a[(i + 55) & 1023];
    s = s * 59 + a[(i + 56) & 1023];
    s = s * 60 + a[(i + 57) & 1023];
    s = s * 61 + a[(i + 58) & 1023];
    s = s * 62 + a[(i + 59) & 1023];
    s = s * 63 + a[(i + 60) & 1023];
    s = s * 64 + a[(i + 61) & 1023];
    s = s * 65 + a[(i + 62) & 1023];
    s = s * 66 + a[(i + 63) & 1023];
    s = s * 67 + a[(i + 64) & 1023];
    s = s * 68 + a[(i + 65) & 1023];
    s = s * 69 + a[(i + 66) & 1023];
    s = s * 70 + a[(i + 67) & 1023];
    s = s * 71 + a[(i + 68) & 1023];
    s = s * 72 + a[(i + 69) & 1023];
    s = s * 73 + a[(i + 70) & 1023];
    s = s * 74 + a[(i + 71) & 1023];
    s = s * 75 + a[(i + 72) & 1023];
    s = s * 76 + a[(i + 73) & 1023];
    s = s * 77 + a[(i + 74) & 1023];
    s = s * 78 + a[(i + 75) & 1023];
    s = s * 79 + a[(i + 76) & 1023];
    s = s * 80 + a[(i + 77) & 1023];
    s = s * 81 + a[(i + 78) & 1023];
    s = s * 82 + a[(i + 79) & 1023];
    s = s * 83 + a[(i + 80) & 1023];
    s = s * 84 + a[(i + 81) & 1023];
    s = s * 85 + a[(i + 82) & 1023];
    s = s * 86 + a[(i + 83) & 1023];
    s = s * 87 + a[(i + 84) & 1023];
    s = s * 88 + a[(i + 85) & 1023];
    s = s * 89 + a[(i + 86) & 1023];
    s = s * 90 + a[(i + 87) & 1023];
    s = s * 91 + a[(i + 88) & 1023];
    s = s * 92 + a[(i + 89) & 1023];
    s = s * 93 + a[(i + 90) & 1023];
    s = s * 94 + a[(i + 91) & 1023];
    s = s * 95 + a[(i + 92) & 1023];
    s = s * 96 + a[(i + 93) & 1023];
    s = s * 97 + a[(i + 94) & 1023];
    s = s * 98 + a[(i + 95) & 1023];
    s = s * 99 + a[(i + 96) & 1023];
    s = s * 100 + a[(i + 97) & 1023];
    s = s * 101 + a[(i + 98) & 1023];
    s = s * 102 + a[(i + 99) & 1023];
    s = s * 103 + a[(i + 100) & 1023];
    s = s * 104 + a[(i + 101) & 1023];
    s = s * 105 + a[(i + 102) & 1023];
    s = s * 106 + a[(i + 103) & 1023];
    s = s * 107 + a[(i + 104) & 1023];
    s = s * 108 + a[(i + 105) & 1023];
    s = s * 109 + a[(i + 106) & 1023];
    s = s * 110 + a[(i + 107) & 1023];
    s = s * 111 + a[(i + 108) & 1023];
    s = s * 112 + a[(i + 109) & 1023];
    s = s * 113 + a[(i + 110) & 1023];
    s = s * 114 + a[(i + 111) & 1023];
    s = s * 115 + a[(i + 112) & 1023];
    s = s * 116 + a[(i + 113) & 1023];
    s = s * 117 + a[(i + 114) & 1023];
    s = s * 118 + a[(i + 115) & 1023];
    s = s * 119 + a[(i + 116) & 1023];
    s = s * 120 + a[(i + 117) & 1023];
    s = s * 121 + a[(i + 118) & 1023];
    s = s * 122 + a[(i + 119) & 1023];
    s = s * 123 + a[(i + 120) & 1023];
    s = s * 124 + a[(i + 121) & 1023];
    s = s * 125 + a[(i + 122) & 1023];
    s = s * 126 + a[(i + 123) & 1023];
    s = s * 127 + a[(i + 124) & 1023];
    s = s * 128 + a[(i + 125) & 1023];
    s = s * 129 + a[(i + 126) & 1023];
    s = s * 130 + a[(i + 127) & 1023];
    s = s * 131 + a[(i + 128) & 1023];
    s = s * 132 + a[(i + 129) & 1023];
    s = s * 133 + a[(i + 130) & 1023];
    s = s * 134 + a[(i + 131) & 1023];
    s = s * 135 + a[(i + 132) & 1023];
    s = s * 136 + a[(i + 133) & 1023];
    s = s * 137 + a[(i + 134) & 1023];
    s = s * 138 + a[(i + 135) & 1023];
    s = s * 139 + a[(i + 136) & 1023];
    s = s * 140 + a[(i + 137) & 1023];
    s = s * 141 + a[(i + 138) & 1023];
    s = s * 142 + a[(i + 139) & 1023];
    s = s * 143 + a[(i + 140) & 1023];
    s = s * 144 + a[(i + 141) & 1023];
    s = s * 145 + a[(i + 142) & 1023];
    s = s * 146 + a[(i + 143) & 1023];
    s = s * 147 + a[(i + 144) & 1023];
    s = s * 148 + a[(i + 145) & 1023];
    s = s * 149 + a[(i + 146) & 1023];
    s = s * 150 + a[(i + 147) & 1023];
    s = s * 151 + a[(i + 148) & 1023];
    s = s * 152 + a[(i + 149) & 1023];
  }
  return s;
}

/* f and g start a kilobyte-aligned way apart: in a direct-mapped 1 KB
 * cache they evict each other. */
__attribute__((noinline, aligned(1024))) int
f(int x)
{
  return x * 7 + 3;
}

__attribute__((noinline, aligned(1024))) int
g(int x)
{
  return x * 5 + 1;
}

int
fg(int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += f(i) + g(s);
  return s;
}

/* A switch: an indirect jump through a table at -O2. */
int
pick(int op, int x)
{
  switch (op) {
  case 0:
    return x + 1;
  case 1:
    return x * 3;
  case 2:
    return x - 7;
  case 3:
    return x ^ 5;
  case 4:
    return x << 2;
  case 5:
    return x >> 1;
  default:
    return 0;
  }
}
