# maint/man.mk -- manual pages, module file and pkg-config file (included
# from Makefile.am).
#
# rankmap.1 comes from the CLI's own --help (help2man, with the sections of
# doc/man/rankmap.h2m); rankmap-settings.7, one MPIR_CVAR_*.7 link per setting
# and one MPIX_*.3 page per function come from src/mpilayer/settings.cvars
# and include/mpix_rankmap.h (maint/gen-man.py): generated, never copied.

EXTRA_DIST += doc/man/rankmap.h2m maint/gen-man.py maint/rankmap.modulefile.in maint/rankmap.pc.in
MAN_INPUTS = $(top_srcdir)/maint/gen-man.py $(top_srcdir)/maint/gen-cvars.py \
	$(top_srcdir)/src/mpilayer/settings.cvars $(top_srcdir)/include/mpix_rankmap.h

if HAVE_HELP2MAN
man/man1/rankmap.1: rankmap$(EXEEXT) $(top_srcdir)/doc/man/rankmap.h2m
	@$(MKDIR_P) man/man1
	$(AM_V_GEN)$(HELP2MAN) --no-info --version-string='$(VERSION)' \
	  --name='topology-aware placement of MPI ranks' \
	  --include='$(top_srcdir)/doc/man/rankmap.h2m' ./rankmap$(EXEEXT) -o $@.tmp && mv $@.tmp $@
else
man/man1/rankmap.1:
	@$(MKDIR_P) man/man1
	@echo "help2man not found (apt-get install help2man): rankmap.1 is not generated" >&2
	@printf '.TH RANKMAP 1\n.SH NAME\nrankmap \\- see rankmap --help (help2man was missing at build time)\n' >$@
endif

man/.stamp: $(MAN_INPUTS)
	@rm -rf man/man3 man/man7
	$(AM_V_GEN)$(PYTHON3) $(top_srcdir)/maint/gen-man.py --version '$(VERSION)' --out man >/dev/null \
	  && touch $@

rankmap.modulefile: $(top_srcdir)/maint/rankmap.modulefile.in config.status
	$(AM_V_GEN)sed -e 's|%VERSION%|$(VERSION)|g' -e 's|%prefix%|$(prefix)|g' $< >$@
rankmap.pc: $(top_srcdir)/maint/rankmap.pc.in config.status
	$(AM_V_GEN)sed -e 's|%VERSION%|$(VERSION)|g' -e 's|%prefix%|$(prefix)|g' \
	  -e 's|%exec_prefix%|$(exec_prefix)|g' -e 's|%libdir%|$(libdir)|g' \
	  -e 's|%includedir%|$(includedir)|g' $< >$@

all-local: all-local-man
all-local-man: man/man1/rankmap.1 man/.stamp rankmap.modulefile rankmap.pc

install-data-local: man/man1/rankmap.1 man/.stamp rankmap.modulefile rankmap.pc
	$(MKDIR_P) '$(DESTDIR)$(mandir)/man1' '$(DESTDIR)$(mandir)/man3' '$(DESTDIR)$(mandir)/man7'
	$(INSTALL_DATA) man/man1/rankmap.1 '$(DESTDIR)$(mandir)/man1/'
	$(INSTALL_DATA) man/man3/*.3 '$(DESTDIR)$(mandir)/man3/'
	$(INSTALL_DATA) man/man7/*.7 '$(DESTDIR)$(mandir)/man7/'
	$(MKDIR_P) '$(DESTDIR)$(datadir)/modulefiles/rankmap' '$(DESTDIR)$(libdir)/pkgconfig'
	$(INSTALL_DATA) rankmap.modulefile '$(DESTDIR)$(datadir)/modulefiles/rankmap/$(VERSION)'
	$(INSTALL_DATA) rankmap.pc '$(DESTDIR)$(libdir)/pkgconfig/rankmap.pc'

clean-local: clean-local-man
uninstall-local: uninstall-local-man
uninstall-local-man:
	-rm -f '$(DESTDIR)$(mandir)/man1/rankmap.1' '$(DESTDIR)$(libdir)/pkgconfig/rankmap.pc' \
	  '$(DESTDIR)$(datadir)/modulefiles/rankmap/$(VERSION)'
	-cd man && for f in man3/*.3 man7/*.7; do rm -f "$(DESTDIR)$(mandir)/$$f"; done

clean-local-man:
	rm -rf man rankmap.modulefile rankmap.pc

# README.md and doc/: refill the tables included from bench/results/ and
# regenerate doc/settings.md (maint/check-docs.sh checks them in CTest)
update-docs:
	$(top_srcdir)/maint/check-docs.sh --update
