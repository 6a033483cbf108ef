# src/pmpi/pmpi.mk -- included from the top Makefile.am.
