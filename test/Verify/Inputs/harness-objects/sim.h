// A simulation object whose sizes are members, set by its constructor and
// its setters; its methods that launch kernels are defined in sim.cu.
#pragma once

class Sim {
public:
  Sim() {
    set_n(4096);
    set_scale(0.5f);
  }
  void set_n(int n) { n_ = n; }
  void set_scale(float s) { scale_ = s; }
  void resize(int n) {
    if (n > 0)
      n_ = n; // only on some paths
  }
  int get_n() const { return n_; }
  float get_scale() const { return scale_; }
  void Start(); // sim.cu
  void Grow();  // sim.cu: changes n_ before its launch

private:
  int n_;
  float scale_;
};
