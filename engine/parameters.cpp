#include "engine/parameters.h"

#include "engine/error.h"
#include "engine/random.h"

namespace rotor {

ParameterId ParameterStore::declare(const std::string& name, const Shape& shape, ParameterInit init,
                                    bool weight_decay) {
  if (allocated()) throw ValueError("ParameterStore: cannot declare '" + name + "' after allocate()");
  if (index_.count(name)) throw ValueError("ParameterStore: parameter '" + name + "' declared twice");
  const ParameterId id = static_cast<ParameterId>(infos_.size());
  infos_.push_back({name, shape, total_, init, weight_decay});
  index_[name] = id;
  total_ += numel(shape);
  return id;
}

void ParameterStore::allocate(uint64_t seed) {
  values_ = Tensor::empty({total_}, dtype_);
  grads_ = Tensor::zeros({total_}, dtype_);
  vars_.clear();
  for (const ParameterInfo& p : infos_) {
    Tensor v = values_.view(p.offset, p.shape);
    switch (p.init.kind) {
      case ParameterInit::Kind::zeros:
        v.fill(0.0);
        break;
      case ParameterInit::Kind::ones:
        v.fill(1.0);
        break;
      case ParameterInit::Kind::constant:
        v.fill(p.init.scale);
        break;
      case ParameterInit::Kind::normal:
      case ParameterInit::Kind::uniform: {
        const RandomKey key{seed, stream_id(p.name), 0};
        const bool normal = p.init.kind == ParameterInit::Kind::normal;
        dispatch(dtype_, [&](auto tag) {
          using T = decltype(tag);
          T* data = v.data<T>();
          for (int64_t i = 0; i < v.numel(); ++i)
            data[i] = static_cast<T>(normal ? p.init.scale * key.normal(i)
                                            : p.init.centre + p.init.scale * (2 * key.uniform_double(i) - 1));
        });
        break;
      }
    }
    vars_.push_back(Var::parameter(v, grads_.view(p.offset, p.shape)));
  }
}

void ParameterStore::check_allocated(const char* what) const {
  if (!allocated()) throw ValueError(std::string("ParameterStore: ") + what + " before allocate()");
}

Var ParameterStore::var(ParameterId id) const {
  check_allocated("var()");
  return vars_.at(static_cast<size_t>(id));
}

const Var& ParameterStore::var(const std::string& name) const {
  check_allocated("var()");
  return vars_[static_cast<size_t>(id(name))];
}

ParameterId ParameterStore::id(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) throw ValueError("ParameterStore: no parameter named '" + name + "'");
  return it->second;
}

Tensor ParameterStore::value(ParameterId id) const {
  check_allocated("value()");
  const ParameterInfo& p = infos_.at(static_cast<size_t>(id));
  return values_.view(p.offset, p.shape);
}

Tensor ParameterStore::grad(ParameterId id) const {
  check_allocated("grad()");
  const ParameterInfo& p = infos_.at(static_cast<size_t>(id));
  return grads_.view(p.offset, p.shape);
}

}  // namespace rotor
