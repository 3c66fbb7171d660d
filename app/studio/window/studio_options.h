#pragma once
// What the studio is started with (main.cpp's command line, tests, grabs).
#include <QString>
#include <optional>

namespace doppler::studio {

struct StudioOptions {
  QString file;        // a graph or device file to open
  QString devices;     // --devices SPEC
  QString method;      // --method NAME
  bool demo = false;   // open the demo even if a session would be restored
  bool fresh = false;  // neither read nor write QSettings (tests, grabs)
  std::optional<bool> dark;
};

}  // namespace doppler::studio
