// groundplane::compiled: gp::Session and its internals, compiled once (see detail/linkage.hpp):
// the public bodies, what a session holds, a fire's steps, settlement, state reports, the
// listings' reads, restore, fires in doubt and retried requests, the keys fires carry, and
// the stored rows' codec.
#include "groundplane/detail/linkage.hpp"
#ifndef GROUNDPLANE_COMPILED_LIB
#error "src/ is built by the groundplane::compiled target, which defines GROUNDPLANE_COMPILED_LIB"
#endif

#include "groundplane/detail/ledger/ledger_codec-inl.hpp"
#include "groundplane/detail/session/fire-inl.hpp"
#include "groundplane/detail/session/in_doubt-inl.hpp"
#include "groundplane/detail/session/key_source-inl.hpp"
#include "groundplane/detail/session/listing-inl.hpp"
#include "groundplane/detail/session/outcome-inl.hpp"
#include "groundplane/detail/session/request_keys-inl.hpp"
#include "groundplane/detail/session/session_core-inl.hpp"
#include "groundplane/detail/session/session_restore-inl.hpp"
#include "groundplane/detail/session/settlement-inl.hpp"
#include "groundplane/detail/session/state_reports-inl.hpp"
#include "groundplane/ledger_fact-inl.hpp"
#include "groundplane/session-inl.hpp"
