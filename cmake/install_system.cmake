# Installed by `cmake --install`: the files whose place or contents depend
# on the prefix given at install time (--prefix), which install(FILES)
# with paths computed at configure time would get wrong.
#   the units  -> PREFIX/lib/systemd/system (or PWTUNE_UNITDIR), with
#                 ExecStart naming PREFIX/sbin/pwtuned and the configuration
#   the config -> /etc/pwtuned for PREFIX=/usr, else PREFIX/etc/pwtuned;
#                 an existing file is kept (the new one goes beside it)
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(SYSCONFDIR "/etc")
else()
  set(SYSCONFDIR "${CMAKE_INSTALL_PREFIX}/etc")
endif()
set(SBINDIR "${CMAKE_INSTALL_PREFIX}/sbin")
if(PWTUNE_UNITDIR)
  set(unitdir "${PWTUNE_UNITDIR}")
else()
  set(unitdir "${CMAKE_INSTALL_PREFIX}/lib/systemd/system")
endif()
set(stage "${PWTUNE_BINARY_DIR}/install-units")
configure_file("${PWTUNE_SOURCE_DIR}/systemd/pwtuned.service"
  "${stage}/pwtuned.service" @ONLY)
file(INSTALL "${stage}/pwtuned.service"
  "${PWTUNE_SOURCE_DIR}/systemd/pwtuned.socket"
  DESTINATION "${unitdir}")
set(conf "$ENV{DESTDIR}${SYSCONFDIR}/pwtuned/pwtuned.conf")
if(EXISTS "${conf}")
  message(STATUS "Keeping: ${conf} (the new one is pwtuned.conf.new)")
  file(INSTALL "${PWTUNE_SOURCE_DIR}/systemd/pwtuned.conf"
    DESTINATION "${SYSCONFDIR}/pwtuned" RENAME pwtuned.conf.new)
else()
  file(INSTALL "${PWTUNE_SOURCE_DIR}/systemd/pwtuned.conf"
    DESTINATION "${SYSCONFDIR}/pwtuned")
endif()
