//===- Yaml.cpp - One YAML document, read without yaml-cpp's LoadAll ------===//
//
// See Yaml.h for why not YAML::LoadAll.
//
//===----------------------------------------------------------------------===//

#include "snow/support/Yaml.h"

#include "llvm/ADT/StringRef.h"
#include <fmt/format.h>
#include <sstream>
#include <yaml-cpp/eventhandler.h>

using namespace snow;

namespace {

/// Notes where documents start and ignores everything else: the parser is
/// only asked whether a second document follows, and where.
class DocumentStarts : public YAML::EventHandler {
public:
  unsigned Count = 0;
  YAML::Mark Last;

  void OnDocumentStart(const YAML::Mark &M) override { ++Count, Last = M; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark &, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark &, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark &, const std::string &, YAML::anchor_t,
                const std::string &) override {}
  void OnSequenceStart(const YAML::Mark &, const std::string &, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark &, const std::string &, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

} // namespace

YamlDocument snow::loadOneDocument(const std::string &Text) {
  YamlDocument D;
  D.Root = YAML::Load(Text);
  std::istringstream In(Text);
  YAML::Parser P(In);
  DocumentStarts Starts;
  if (!P.HandleNextDocument(Starts))
    return D;
  const YAML::Mark First = Starts.Last;
  if (!P.HandleNextDocument(Starts))
    return D;
  D.SecondLine = unsigned(Starts.Last.line) + 1;
  // A real second document starts with '---' or a directive, or follows a
  // '...' end marker; anything else is a token the parser skipped over.
  llvm::StringRef Before = llvm::StringRef(Text).take_front(size_t(Starts.Last.pos)).rtrim();
  llvm::StringRef At = llvm::StringRef(Text).drop_front(size_t(Starts.Last.pos));
  D.Stuck = Starts.Last.pos <= First.pos ||
            !(At.startswith("---") || At.startswith("%") || Before.endswith("..."));
  return D;
}

std::string snow::extraDocumentError(const YamlDocument &D, const std::string &File) {
  if (!D.SecondLine)
    return "";
  if (D.Stuck)
    return fmt::format("{}:{}: YAML syntax error: the parser cannot place what follows (a stray "
                       "',', ']' or '}}'?)",
                       File, D.SecondLine);
  return fmt::format("{}:{}: expected one YAML document, got a second (a '---' line starts "
                     "another)",
                     File, D.SecondLine);
}
