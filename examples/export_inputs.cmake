# cmake -DCLI=spyglass-cli -DMATRICES=dir -DOUT=dir -P export_inputs.cmake: the segmented-DIA exports
# segdia_spmv_example runs on (CTest fixture).
foreach(args "watt_2;--format;segdia" "pts5ldd03;--format;segdia;--threshold;16")
  list(POP_FRONT args name)
  execute_process(COMMAND ${CLI} export ${MATRICES}/${name}.mtx ${args} -o ${OUT}/${name}.spy RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "spyglass-cli export ${name}.mtx failed (${rc})")
  endif()
endforeach()
