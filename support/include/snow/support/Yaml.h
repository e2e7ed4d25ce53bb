//===- Yaml.h - One YAML document, read without yaml-cpp's LoadAll --*- C++ -*-===//
//
// Every YAML input (models, hardware configurations, energy tables) is one
// document; a second one is refused rather than silently dropped (issue 19).
// YAML::LoadAll would say how many documents there are, but yaml-cpp 0.7
// (Debian 12) loops forever in it on some malformed input, appending null
// documents until memory runs out (a ',' where a node should start; yaml-cpp
// PR #1319, fixed after 0.7), which the fuzzer found in the model reader.
// loadOneDocument asks the parser for at most two documents, so it always
// stops.
//
//===----------------------------------------------------------------------===//
#ifndef SNOW_SUPPORT_YAML_H
#define SNOW_SUPPORT_YAML_H

#include <string>
#include <yaml-cpp/yaml.h>

namespace snow {

struct YamlDocument {
  YAML::Node Root;         ///< The first document (Null for empty text).
  unsigned SecondLine = 0; ///< 1-based line where a second document starts, 0 if none.
  /// The parser reported a second document without consuming any input: a
  /// token it could not place (yaml-cpp 0.7 gives no error for these). The
  /// text is malformed, not two documents.
  bool Stuck = false;
};

/// The first document of Text, and where a second one starts if there is
/// one. Throws YAML::Exception on syntax errors, as YAML::Load does.
YamlDocument loadOneDocument(const std::string &Text);

/// "File:L: ..." when D holds more than one document or its parser got
/// stuck, else "". One wording for every YAML reader.
std::string extraDocumentError(const YamlDocument &D, const std::string &File);

} // namespace snow

#endif
