# Build module of the Conan package with tensorlib/*:cuda=True, included just
# before tensorlib-conan.cmake: makes tensorlib::cuda required.
list(APPEND TENSORLIB_CONAN_COMPONENTS cuda)
