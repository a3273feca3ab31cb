// Objects made and set up here, their launching methods called here.
#include "sim.h"

int main(int argc, char **argv) {
  Sim a; // the constructor's sizes
  a.Start();
  Sim b;
  b.set_n(1 << 20);
  b.set_scale(2.0f);
  b.Start();
  Sim c;
  c.resize(argc * 100);
  c.Start();
  Sim d;
  d.Grow();
  return 0;
}
