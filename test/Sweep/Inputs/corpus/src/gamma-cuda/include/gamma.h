#pragma once
#define TILE 32
