#pragma once
struct Params {
  float scale;
  int octaves;
  float gain;
};

struct Renderer {
  void render(float *out, const Params p, int rows);
  void render_changed(float *out, Params p, int rows);
};

// A structure the harness cannot pass whole (a pointer member): its number
// members still reach another file's function.
struct Grid {
  const char *name;
  int xdim, ydim;
  float *host_copy;
};
void clear_grid(float *buf, const Grid g);
