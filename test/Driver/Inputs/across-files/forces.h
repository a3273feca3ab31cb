void compute_forces(const float *pot, float *out, int n, int n_terms);
void pick_first(const float *rows, float *out, int n, int width);
