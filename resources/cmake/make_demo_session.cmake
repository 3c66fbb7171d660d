# Builds the demo session the studio opens on first start, with the project's own commands:
# the LLaMA attention block on 4 x P100-PCIe placed by three heuristics and, when the LibTorch
# module is built, a short seeded training (stage I into a scratch session, stage II from its
# checkpoint into the demo session, so the demo holds one finished training run).
#
#   cmake -DDOPPLER=<doppler> -DOUT_DIR=<dir> -DTORCH=ON|OFF -P make_demo_session.cmake
#
# Everything is written under a scratch name first and renamed at the end, so an interrupted
# build never leaves a half session that a later build would take as done.
foreach(var DOPPLER OUT_DIR TORCH)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "make_demo_session.cmake: ${var} is not set")
  endif()
endforeach()

set(work "${OUT_DIR}/demo-session.work")
set(session "${work}/demo-session.sqlite")
set(devices "4xP100-PCIe")
file(REMOVE_RECURSE "${work}")
file(MAKE_DIRECTORY "${work}")

function(doppler)
  execute_process(COMMAND "${DOPPLER}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "doppler ${ARGN} failed (${rc}):\n${out}\n${err}")
  endif()
endfunction()

doppler(graph generate llama-block -o "${work}/llama-block.json")
foreach(method critical-path heft etf)
  doppler(place --db "${session}" --seed 1 -m ${method} -g "${work}/llama-block.json"
          -d ${devices})
endforeach()

if(TORCH)
  # The small architecture keeps the whole demo a few seconds; --eval-every 5 gives the curve
  # greedy points. One thread: the same seed gives the same run on any machine.
  set(arch --hidden 16 --mp-steps 2 --edge-hidden 8 --head-hidden 16 --device-hidden 8
           --seed 1 --threads 1 --eval-every 5 -g "${work}/llama-block.json" -d ${devices})
  doppler(train --db "${work}/imitation.sqlite" --stage imitation --episodes 30 ${arch}
          --out "${work}/demo-imitation.pt")
  doppler(train --db "${session}" --stage sim --episodes 60 --from "${work}/demo-imitation.pt"
          ${arch} --out "${OUT_DIR}/demo-policy.pt")
endif()

file(REMOVE "${OUT_DIR}/demo-session.sqlite")
file(RENAME "${session}" "${OUT_DIR}/demo-session.sqlite")
