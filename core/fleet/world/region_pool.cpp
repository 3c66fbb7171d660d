#include "core/fleet/world/region_pool.h"

#include <cmath>
#include <unordered_map>

#include "core/common/random.h"

namespace doppler::fleet {

int GpuPool::total() const {
  int sum = 0;
  for (int c : count) sum += c;
  return sum;
}

std::array<int, 2> poolRange(GpuType type, double scale) {
  // TORTA (arXiv 2507.10259 v2, Sec. VI setup; digest §4), by type; L40S in V100's place.
  static const std::array<std::array<int, 2>, kGpuTypes> torta{{
      {40, 60},  // A100
      {20, 40},  // H100
      {60, 80},  // L40S (V100's range)
      {40, 60},  // RTX 4090
      {40, 60},  // T4
  }};
  const auto& range = torta[static_cast<size_t>(type)];
  return {static_cast<int>(std::lround(range[0] * scale)),
          static_cast<int>(std::lround(range[1] * scale))};
}

GpuPool poolFor(int region, const PoolRule& rule) {
  GpuPool pool;
  for (GpuType type : kAllGpuTypes) {
    const auto [lo, hi] = poolRange(type, rule.scale);
    SplitMix64 rng = streamFor(rule.seed, static_cast<uint64_t>(region),
                               static_cast<uint64_t>(type) + 1, 0x9001);
    pool.count[static_cast<size_t>(type)] =
        lo + static_cast<int>(rng.next() % static_cast<uint64_t>(hi - lo + 1));
  }
  return pool;
}

namespace {

// US dollars per euro: the ECB reference rate's 2024 average, 1.0824.
constexpr double kUsdPerEur = 1.0824;

// Non-household (industrial) electricity prices excluding VAT and recoverable taxes, euro per
// kWh, Eurostat table nrg_pc_205, first half of 2024. Anchors quoted by Eurostat's "Electricity
// price statistics" (data extracted October 2024): highest Ireland 0.256, lowest Finland 0.0939;
// the EU-27 average near 0.19 (0.20 in the second half of 2023, then 7% lower). The other
// countries' values are rounded recollections of that table (±0.02 €/kWh): an assumption to
// recheck against nrg_pc_205 before quoting any cost. GB (not in Eurostat since 2020) from the UK
// DESNZ industrial price (about 25 p/kWh excluding CCL, 2024); NO, CH and RS as Eurostat
// reports them for non-EU members, rounded.
const std::unordered_map<std::string, double>& europeEurPerKwh() {
  static const std::unordered_map<std::string, double> prices{
      {"AT", 0.18}, {"BE", 0.18}, {"BG", 0.15},   {"CH", 0.20}, {"CZ", 0.19}, {"DE", 0.20},
      {"DK", 0.15}, {"ES", 0.12}, {"FI", 0.0939}, {"FR", 0.16}, {"GB", 0.29}, {"GR", 0.16},
      {"HR", 0.17}, {"HU", 0.17}, {"IE", 0.256},  {"IT", 0.21}, {"NL", 0.17}, {"NO", 0.08},
      {"PL", 0.19}, {"PT", 0.13}, {"RS", 0.09},   {"SE", 0.09},
  };
  return prices;
}
constexpr double kEuAverageEurPerKwh = 0.19;

// US average price to industrial customers by state, cents per kWh, EIA Electric Power Monthly
// Table 5.6.B, 2023 annual averages, rounded recollections (±0.5 cent; recheck before quoting).
// The US average was about 8.0 cents.
const std::unordered_map<std::string, double>& usCentsPerKwh() {
  static const std::unordered_map<std::string, double> prices{
      {"CA", 19.5}, {"CO", 8.8}, {"GA", 7.3}, {"IL", 8.4}, {"IN", 8.9},
      {"MO", 8.0},  {"NY", 7.6}, {"TX", 6.8}, {"VA", 8.5}, {"WA", 6.4},
  };
  return prices;
}

// cost266's 37 cities and their countries.
const std::unordered_map<std::string, std::string>& cityCountry() {
  static const std::unordered_map<std::string, std::string> cities{
      {"Amsterdam", "NL"},  {"Athens", "GR"},     {"Barcelona", "ES"}, {"Belgrade", "RS"},
      {"Berlin", "DE"},     {"Birmingham", "GB"}, {"Bordeaux", "FR"},  {"Brussels", "BE"},
      {"Budapest", "HU"},   {"Copenhagen", "DK"}, {"Dublin", "IE"},    {"Dusseldorf", "DE"},
      {"Frankfurt", "DE"},  {"Glasgow", "GB"},    {"Hamburg", "DE"},   {"Helsinki", "FI"},
      {"Krakow", "PL"},     {"Lisbon", "PT"},     {"London", "GB"},    {"Lyon", "FR"},
      {"Madrid", "ES"},     {"Marseille", "FR"},  {"Milan", "IT"},     {"Munich", "DE"},
      {"Oslo", "NO"},       {"Palermo", "IT"},    {"Paris", "FR"},     {"Prague", "CZ"},
      {"Rome", "IT"},       {"Seville", "ES"},    {"Sofia", "BG"},     {"Stockholm", "SE"},
      {"Strasbourg", "FR"}, {"Vienna", "AT"},     {"Warsaw", "PL"},    {"Zagreb", "HR"},
      {"Zurich", "CH"},
  };
  return cities;
}

// abilene's PoPs by the first four letters of their names, and their states (WASH: the
// Washington DC PoP, priced as Virginia, where its data centres are).
const std::unordered_map<std::string, std::string>& abileneState() {
  static const std::unordered_map<std::string, std::string> pops{
      {"ATLA", "GA"}, {"CHIN", "IL"}, {"DNVR", "CO"}, {"HSTN", "TX"},
      {"IPLS", "IN"}, {"KSCY", "MO"}, {"LOSA", "CA"}, {"NYCM", "NY"},
      {"SNVA", "CA"}, {"STTL", "WA"}, {"WASH", "VA"},
  };
  return pops;
}

// The intercontinental world's metros outside Europe and the US (its European ones are cost266's
// cities, its US ones priced by state below), by country in US dollars per
// kWh for industrial or large commercial customers, 2023-2024, before VAT. These are rounded
// recollections of each country's regulator or utility tariffs (Brazil's ANEEL, South Africa's
// Eskom Megaflex, Indian state industrial tariffs, Singapore's SP Group non-domestic tariff,
// Japan's METI industrial average, Australia's large-business offers), converted at 2024 average
// rates: an assumption good to about +-30%, to recheck before quoting any cost.
const std::unordered_map<std::string, ElectricityPrice>& cloudMetroPrice() {
  static const std::unordered_map<std::string, ElectricityPrice> metros{
      {"SaoPaulo", {0.11, "BR"}},  {"Johannesburg", {0.09, "ZA"}}, {"Mumbai", {0.09, "IN"}},
      {"Singapore", {0.22, "SG"}}, {"Tokyo", {0.15, "JP"}},        {"Sydney", {0.13, "AU"}},
  };
  return metros;
}

const std::unordered_map<std::string, std::string>& usMetroState() {
  static const std::unordered_map<std::string, std::string> metros{
      {"Ashburn", "VA"}, {"Dallas", "TX"}, {"SanJose", "CA"}};
  return metros;
}

ElectricityPrice usState(const std::string& state) {
  return {usCentsPerKwh().at(state) / 100.0, "US-" + state};
}

ElectricityPrice europe(const std::string& country) {
  return {europeEurPerKwh().at(country) * kUsdPerEur, country};
}

}  // namespace

ElectricityPrice basePrice(const std::string& topology, const std::string& node) {
  if (topology == "polska") return europe("PL");
  if (topology == "germany50") return europe("DE");
  if (auto it = cityCountry().find(node); it != cityCountry().end()) return europe(it->second);
  if (auto it = cloudMetroPrice().find(node); it != cloudMetroPrice().end()) return it->second;
  if (auto it = usMetroState().find(node); it != usMetroState().end()) return usState(it->second);
  if (node.size() >= 4)
    if (auto it = abileneState().find(node.substr(0, 4)); it != abileneState().end())
      return usState(it->second);
  return {kEuAverageEurPerKwh * kUsdPerEur, "EU-27 average"};
}

ElectricityPrice electricityPrice(const std::string& topology, const std::string& node, int region,
                                  uint64_t seed, double spread) {
  ElectricityPrice price = basePrice(topology, node);
  if (price.basis == "EU-27 average") spread = std::max(spread, 0.30);
  SplitMix64 rng = streamFor(seed, static_cast<uint64_t>(region), 0xE1EC);
  price.usd_per_kwh *= 1.0 + spread * (2.0 * rng.uniform() - 1.0);
  return price;
}

}  // namespace doppler::fleet
