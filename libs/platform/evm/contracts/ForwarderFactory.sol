// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {Forwarder} from "./Forwarder.sol";

/// @notice Deploys deposit addresses (Forwarders) by CREATE2 and sweeps them to the parent, the chain's hot wallet.
/// One call deploys the forwarder when it is not there yet and flushes the listed tokens and the native coin.
contract ForwarderFactory {
    address public immutable parent;
    address public immutable operator;

    error NotOperator(address caller);

    event Swept(bytes32 indexed salt, address indexed forwarder);

    constructor(address parent_, address operator_) {
        parent = parent_;
        operator = operator_;
    }

    /// The deposit address of `salt`, deployed or not.
    function forwarderAddress(bytes32 salt) public view returns (address) {
        bytes32 hash = keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, keccak256(type(Forwarder).creationCode)));
        return address(uint160(uint256(hash)));
    }

    function sweep(bytes32 salt, address[] calldata tokens) external returns (address forwarder) {
        if (msg.sender != operator) revert NotOperator(msg.sender);
        forwarder = forwarderAddress(salt);
        if (forwarder.code.length == 0) {
            forwarder = address(new Forwarder{salt: salt}());
        }
        Forwarder(payable(forwarder)).flush(tokens);
        emit Swept(salt, forwarder);
    }
}
