#ifndef PARTICLES_H
#define PARTICLES_H

#ifndef NPARTICLES
#define NPARTICLES (512 * 1024)
#endif
#ifndef STEPS
#define STEPS 40
#endif
#define NATTRACTORS 4
#define DT 0.001f
#define SOFTENING 0.1f

/* array of structures layout */
struct Particle {
  float x, y, z;
  float vx, vy, vz;
  float mass;
  float charge;
};

#endif
