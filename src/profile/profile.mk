# src/profile/profile.mk -- included from the top Makefile.am.
