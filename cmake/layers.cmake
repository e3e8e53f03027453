# cmake/layers.cmake: the layers depend one way,
#
#     daemon, cli  ->  api  ->  db  ->  engine
#
# and a file of a layer includes no header of a layer above it. Run as a
# script: cmake -DROOT=<source tree> -P layers.cmake; it names every
# include that breaks the rule and fails. The build runs it on every
# build (target `layers`), so a change that breaks the rule does not
# build; tests/build/layers.sh shows it fails on a tree that breaks it.
cmake_minimum_required(VERSION 3.13)
if(NOT ROOT)
  message(FATAL_ERROR "layers.cmake: set ROOT to the source tree")
endif()

# Each layer and what it may include, besides itself.
set(LAYERS engine db api daemon cli)
set(MAY_engine "")
set(MAY_db engine)
set(MAY_api db engine)
set(MAY_daemon api db engine)
set(MAY_cli api db engine)

# Which layer holds each header, by its file name.
foreach(layer IN LISTS LAYERS)
  file(GLOB headers RELATIVE ${ROOT}/${layer} ${ROOT}/${layer}/*.h)
  foreach(h IN LISTS headers)
    set(HOME_${h} ${layer})
  endforeach()
endforeach()

set(broken 0)
foreach(layer engine db api)
  file(GLOB sources ${ROOT}/${layer}/*.c ${ROOT}/${layer}/*.h)
  foreach(src IN LISTS sources)
    file(STRINGS ${src} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1"
        inc "${line}")
      get_filename_component(name ${inc} NAME)
      set(home "${HOME_${name}}")
      if(home STREQUAL "" OR home STREQUAL layer)
        continue()
      endif()
      if(NOT home IN_LIST MAY_${layer})
        file(RELATIVE_PATH rel ${ROOT} ${src})
        message(SEND_ERROR "${rel}: includes ${inc}, a header of ${home}/, "
          "a layer above ${layer}/ (the layers: daemon and cli -> api -> "
          "db -> engine)")
        math(EXPR broken "${broken} + 1")
      endif()
    endforeach()
  endforeach()
endforeach()
if(broken GREATER 0)
  message(FATAL_ERROR "layers: ${broken} include(s) against the direction "
    "of the layers")
endif()
