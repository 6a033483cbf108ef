# src/map/hier.mk -- included from the top Makefile.am.
