#pragma once
// Text for people: aligned tables and numbers in fixed notation. Machine output is JSON
// (placement_json.h); nothing here is parsed back.
#include <string>
#include <vector>

namespace doppler::cli {

enum class Align { Left, Right };

// Rows of cells as an aligned table: each column as wide as its widest cell, columns two spaces
// apart, no trailing blanks. `align` gives each column's alignment (missing ones: Left).
std::string textTable(const std::vector<std::vector<std::string>>& rows,
                      const std::vector<Align>& align = {});

// Fixed notation: "1226510.4", not "1.22651e+06"; three decimals below 10, else one.
std::string fixedNumber(double x);
// Fixed notation with `decimals` decimals.
std::string fixedNumber(double x, int decimals);

// Six significant digits, as a stream prints by default ("0.123457", "1.22651e+06").
std::string shortNumber(double x);

}  // namespace doppler::cli
