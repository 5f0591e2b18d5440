# cpack -G DEB in the build directory: spyglass_<version>_<arch>.deb (docs/install.md).
set(CPACK_PACKAGE_NAME spyglass)
set(CPACK_PACKAGE_VENDOR "Spyglass")
set(CPACK_PACKAGE_CONTACT "Spyglass developers <spyglass@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_INSTALL_DIRECTORY spyglass)
set(CPACK_RESOURCE_FILE_README "${PROJECT_SOURCE_DIR}/README.md")
# RelWithDebInfo programs are mostly debug information; a package ships them stripped.
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "GPU matrix explorer\n Open a Matrix Market, SciPy .npz or Spyglass file and see its sparsity, storage formats\n and statistics; run Spyglass's CUDA kernels against cuSPARSE, cuBLAS and cuSOLVER.\n Without a GPU everything runs on the CPU reference backend. Includes spyglass-cli.")
# Depends come from dpkg-shlibdeps (dpkg-dev): the Debian packages of Qt, OpenCV, QCustomPlot, zlib...
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Qt's SVG plugins draw the toolbar icons; without them the style's own icons stand in (mainwindow.cpp).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libqt6svg6")
if(SPYGLASS_HAVE_CUDA)
  # cuBLAS, cuSPARSE and cuSOLVER come from NVIDIA's toolkit, not from a Debian package, so
  # dpkg-shlibdeps has no package to name for them: it is told they are private to the package (found
  # through the programs' RUNPATH, see app/CMakeLists.txt) and leaves them out of Depends. NVIDIA's
  # apt repository names them per toolkit release; apt installs them when that repository is
  # configured and passes over them otherwise (toolkit from the runfile), hence Recommends.
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${SPYGLASS_CUDA_RUNTIME_LIBRARY_DIRS})
  set(_cuda "${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}")
  string(APPEND CPACK_DEBIAN_PACKAGE_RECOMMENDS ", libcublas-${_cuda}, libcusparse-${_cuda}, libcusolver-${_cuda}, libnvjitlink-${_cuda}")
  # NCCL is opened only by the multi-GPU commands (--gpus N), and the driver only when a GPU is used.
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libnccl2")
endif()
# The Python container reader (share/spyglass/python) imports numpy, and scipy for to_scipy().
if(CPACK_DEBIAN_PACKAGE_SUGGESTS)
  string(APPEND CPACK_DEBIAN_PACKAGE_SUGGESTS ", ")
endif()
string(APPEND CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-numpy, python3-scipy")
include(CPack)
