#pragma once
#include <nlohmann/json.hpp>

#include "plugins/sdk/python_file.h"
#include "plugins/torch_module/module_class.h"

namespace mine::torch_module {

// Inputs for instantiating and calling the module, read from the file alone (the harness's
// shape deducer corrects them on the GPU machine; kernels/harness/module_inputs.py reads them):
//   {"init": [{"name": "dim", "literal": "64", "source": "call_site"}, ...],
//    "forward": [{"name": "x", "rank": 4, "dims": {"1": 64}, "dtype": "float32", "evidence": [...]}]}
// init sources, in the order they are tried: "call_site" (a literal argument where the file
// instantiates the class, `Block(64, 4)`, or another file of the repository does, for parameters
// without a default: call_sites.h; a class of the file it passes, `ResNet(BasicBlock, ...)`, is
// `stand_in` "module:BasicBlock"), "default" (no literal: the harness lets Python use
// the default; not for a None default the code uses unchecked), "use" (what the class does
// with it asks for a tuple, a class, a callable object or a string: parameter_use.h, or a
// tuple/list annotation), "size_name" (the name reads as a size, a head count, a rate...),
// "stand_in" (the name reads as an object: `config` gets a config whose attributes are guessed
// by name, `act_layer` a torch.nn class, `model` an nn.Identity; field `stand_in` says which)
// and "fallback" (an unannotated name with no other clue: 16).
// forward: parameters without defaults (`keyword`: true after `*`); rank from
// `B, C, H, W = x.shape`, `x.shape[k]`, `x.size(k)`, `x.permute(...)`, `x.transpose(a, b)`,
// `x.flatten(k)`, einops patterns (`rearrange(x, 'b n d -> ...')`, a Sequential's Rearrange) and
// the first layer the tensor goes through (Conv2d: rank 4 and dim 1; Linear/LayerNorm: the last
// dim; Embedding: int64 below num_embeddings), call sites, and last a shape written for it (a
// comment on its line, `embeds,  # (r b n d)`, or forward's docstring, `qkv: ... (B, S, 3, H, D)`:
// a likely rank, rank_known false); dtype from the layer or the name (`mask`: bool,
// `*_ids`: int64).
nlohmann::json infer_inputs(const sdk::PythonFile& file, const ModuleClass& cls);

}  // namespace mine::torch_module
