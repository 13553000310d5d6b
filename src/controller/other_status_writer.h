#pragma once

// Another HPA controller writing the status of the HPAs this one decides: two controllers scale
// the same targets, each from its own history, and the HPA's status flips between their
// decisions. The usual cause is a switch half done: kube-controller-manager still runs its HPA
// loop (its --controllers does not exclude horizontalpodautoscaling). The HPA cache keeps
// each HPA's last status write by another field manager (api::HorizontalPodAutoscaler::
// lastForeignStatusWrite); these rules say when that write is another controller at work.

#include <optional>
#include <string>

#include "api/hpa.h"
#include "common/time.h"

namespace hpa::controller {

// How long a write counts in hpa_controller_other_status_writers: many sync periods of the
// other controller (15 s by default) and many scrape intervals, so one write per HPA shows, and
// short enough that the count falls to none soon after the other controller stops.
inline constexpr Duration kOtherStatusWriterWindow = std::chrono::minutes(10);

// Whether `write` was made during the leadership term that began at `leadingSince`: strictly
// later than that instant truncated to whole seconds, the resolution of managedFields' times (a
// write stamped with the second in which leadership began may have preceded it, and is not
// counted).
bool writtenDuringTerm(const std::optional<api::StatusWrite>& write, Time leadingSince);

// Whether to warn about an HPA's last foreign status write: only while this instance leads
// (`leadingSince` set), once per HPA per term (`warnedInTerm`), for a write of this term.
bool shouldWarnOfOtherStatusWriter(const std::optional<api::StatusWrite>& write,
                                   std::optional<Time> leadingSince, bool warnedInTerm);

// Whether hpa_controller_other_status_writers counts the HPA at `now`: written during this
// instance's term, at most kOtherStatusWriterWindow before `now`.
bool countsAsOtherStatusWriter(const std::optional<api::StatusWrite>& write,
                               std::optional<Time> leadingSince, Time now);

// The Warning Event's message: who wrote, when, that two HPA controllers act on the HPA and
// only one must, and for kube-controller-manager how to turn its HPA loop off.
std::string otherStatusWriterMessage(const api::StatusWrite& write);

}  // namespace hpa::controller
