-- SPDX-License-Identifier: MIT
-- Deliberately broken: `make scenarios` and test_scenario check that it fails and that the
-- error names line 7 of this file.
local id = gbvp.insert(0, "sensor")
gbvp.check(gbvp.interface(id).enabled, "sensor enumerated")
-- the next line calls a field of nil
local x = gbvp.no_such_function(id)
gbvp.check(x, "never reached")
