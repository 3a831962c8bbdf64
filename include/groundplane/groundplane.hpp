// groundplane — declared facts, checked claims, and the app's record that outranks the
// conversation. The umbrella header: every part also has its own header.
#pragma once

#include "groundplane/any_check.hpp"
#include "groundplane/boundary.hpp"
#include "groundplane/check.hpp"
#include "groundplane/checks/aggregate_reconciles.hpp"
#include "groundplane/checks/comparison.hpp"
#include "groundplane/checks/entities_recorded.hpp"
#include "groundplane/checks/ranking_prefix.hpp"
#include "groundplane/checks/row_integrity.hpp"
#include "groundplane/checks/superlative.hpp"
#include "groundplane/decimal.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"
#include "groundplane/tolerance.hpp"
#include "groundplane/verdict.hpp"
#include "groundplane/version.hpp"
