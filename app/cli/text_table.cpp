#include "text_table.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace doppler::cli {

std::string textTable(const std::vector<std::vector<std::string>>& rows,
                      const std::vector<Align>& align) {
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t column = 0; column < row.size(); ++column) {
      if (width.size() <= column) width.push_back(0);
      width[column] = std::max(width[column], row[column].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t column = 0; column < row.size(); ++column) {
      const std::string& cell = row[column];
      const std::string pad(width[column] - cell.size(), ' ');
      const bool right = column < align.size() && align[column] == Align::Right;
      line += right ? pad + cell : cell + pad;
      if (column + 1 < row.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string fixedNumber(double x) {
  return fixedNumber(x, x != 0 && std::abs(x) < 10 ? 3 : 1);
}

std::string fixedNumber(double x, int decimals) {
  std::ostringstream s;
  s << std::fixed;
  s.precision(decimals);
  s << x;
  return s.str();
}

std::string shortNumber(double x) {
  if (std::isnan(x)) return "nan";
  std::ostringstream s;
  s.precision(6);
  s << x;
  return s.str();
}

}  // namespace doppler::cli
