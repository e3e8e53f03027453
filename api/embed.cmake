# Turn a file into a C source holding its bytes:
#   cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed.cmake
# defines  const unsigned char NAME[];  const unsigned long NAME_len;
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUT}" "/* Generated from ${IN} by embed.cmake: do not edit. */\n"
  "const unsigned char ${NAME}[] = {\n${body}0x00\n};\n"
  "const unsigned long ${NAME}_len = ${len};\n")
