// cuemu stand-in for the CUDA runtime header (see cuemu.h).
#include "../cuemu.h"
