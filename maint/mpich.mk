# maint/mpich.mk -- building the patched MPICH as part of `make` (filled in
# by the MPICH work; empty for now).
