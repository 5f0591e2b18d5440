#include "spyglass/backend.h"
#include <cstdio>
int main() { std::printf("%s\n", spyglass::backendSummary().c_str()); return 0; }
