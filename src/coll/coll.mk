# src/coll/coll.mk -- torus broadcast schedule (pure code) and its tests;
# included from the top Makefile.am.
