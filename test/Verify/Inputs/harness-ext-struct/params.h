#pragma once
struct Params {
  float scale;
  int octaves;
  float gain;
};

struct Renderer {
  void render(float *out, Params p, int rows);
  void render_changed(float *out, Params p, int rows);
};
