# src/discover/discover.mk -- included from the top Makefile.am.
