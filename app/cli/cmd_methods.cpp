// `doppler methods`: the placement methods and their parameters.
#include <sstream>

#include "cli_common.h"
#include "core/heuristics/method.h"

namespace doppler::cli {
namespace {

const char* typeName(ParamSpec::Type type) {
  switch (type) {
    case ParamSpec::Type::Number:
      return "number";
    case ParamSpec::Type::Integer:
      return "integer";
    case ParamSpec::Type::Choice:
      return "choice";
    case ParamSpec::Type::Bool:
      break;
  }
  return "bool";
}

nlohmann::json methodsJson() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& method : methods()) {
    nlohmann::json params = nlohmann::json::array();
    for (const ParamSpec& p : method->params()) {
      nlohmann::json param = {{"name", p.name},
                              {"type", typeName(p.type)},
                              {"default", p.default_value},
                              {"description", p.description}};
      if (p.type == ParamSpec::Type::Choice) param["choices"] = p.choices;
      if (p.type == ParamSpec::Type::Number || p.type == ParamSpec::Type::Integer) {
        param["min"] = p.min;
        param["max"] = p.max;
      }
      params.push_back(param);
    }
    out.push_back({{"name", method->name()},
                   {"description", method->description()},
                   {"search", method->isSearch()},
                   {"params", params}});
  }
  return out;
}

std::string methodsText() {
  std::ostringstream s;
  for (const auto& method : methods()) {
    s << method->name() << "\n    " << method->description() << "\n";
    for (const ParamSpec& p : method->params()) {
      s << "    --param " << p.name << "=" << p.default_value << "  (" << typeName(p.type);
      if (p.type == ParamSpec::Type::Choice) {
        s << ":";
        for (auto& choice : p.choices) s << " " << choice;
      }
      s << ") " << p.description << "\n";
    }
  }
  return s.str();
}

}  // namespace

void addMethodsCommand(CLI::App& app) {
  auto output = std::make_shared<OutputArgs>();
  CLI::App* cmd = app.add_subcommand("methods", "List placement methods and their parameters");
  addOutputOptions(*cmd, *output);
  cmd->callback([output] { writeResult(*output, methodsJson, methodsText); });
}

}  // namespace doppler::cli
