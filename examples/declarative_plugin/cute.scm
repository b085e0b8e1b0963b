; A decorated function whose decorator (bare, attribute or call) is captured for mine to resolve
; through the file's imports against the manifest's "resolves_to".
(decorated_definition
  (decorator
    [(identifier) (attribute) (call function: [(identifier) (attribute)])] @decorator)
  definition: (function_definition)) @kernel
