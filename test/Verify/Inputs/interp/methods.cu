// Sizes behind getters: members of the object the method is called on,
// through nested getters, pointers, and a method that launches the kernel
// itself, and a setter called before the launch. A virtual getter stays
// unknown.
__global__ void zero(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = 0.0f;
}

class Frame {
public:
  Frame(int w, int h) : w_(w), h_(h) {}
  int width() const { return w_; }
  int height() const { return h_; }
  int pixels() const { return width() * height(); }
  void resize(int w) { w_ = w; }

private:
  int w_, h_;
};

struct Particles {
  int count = 2000;
  int size() const { return count; }
  void clear_all() {
    float *a;
    int n = size();
    cudaMalloc(&a, n * sizeof(float));
    zero<<<(n + 127) / 128, 128>>>(a, n);
  }
};

struct Shape {
  virtual int cells() const { return 64; }
};

__global__ void pad(float *a, int n) { a[n] = 1.0f; }
__global__ void crop(float *a, int n) { a[n] = 2.0f; }

int main() {
  Frame img(640, 480);
  float *a;
  cudaMalloc(&a, img.pixels() * sizeof(float));
  zero<<<(img.pixels() + 255) / 256, 256>>>(a, img.width());
  Particles ps;
  ps.clear_all();
  Frame *p = &img;
  zero<<<1, 32>>>(a, p->height());
  Shape s;
  pad<<<1, 1>>>(a, s.cells());
  Frame other(32, 32);
  other.resize(64);
  crop<<<1, 1>>>(a, other.width());
  return 0;
}
